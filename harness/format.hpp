// The three output formats every tool's report speaks (report.hpp, workload_report.hpp). Apart
// from cli.hpp, which parses --format, so the report library needs no command-line parser.
#pragma once

#include <cstdio>
#include <string>

namespace ddl::harness {

// nccl: a collective sweep's table in nccl-tests' own layout (report_nccl.hpp); only the sweeps
// print it.
enum class Format { table, csv, json, nccl };

// One number as printf's `format` spells it ("%.3f"): every report cell goes through here, so
// the digits a format keeps are said once per column, where the column is written.
inline std::string printed(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace ddl::harness
