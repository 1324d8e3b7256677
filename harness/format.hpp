// The three output formats every tool's report speaks (report.hpp, workload_report.hpp). Apart
// from cli.hpp, which parses --format, so the report library needs no command-line parser.
#pragma once

namespace ddl::harness {

enum class Format { table, csv, json };

}  // namespace ddl::harness
