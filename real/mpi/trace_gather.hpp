// The trace file of a real run: rank 0 alone opens and writes it; every rank's events reach it
// through MPI, one rank after another in rank order, so the file is laid out as ddlsim's is
// (header, then rank 0's events, rank 1's, ...) and rank 0 holds one rank's part at a time.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/trace.hpp"

namespace ddl {

// Collective: rank 0 opens `path` into `file` (the others leave it empty). Returns the reason
// it could not (the same text on every rank), or nothing.
// Every wait of both functions is bounded by timeout_s (ddl::Timeout naming the rank awaited).
std::optional<std::string> open_trace_on_root(MPI_Comm world, const std::string& path,
                                              std::optional<harness::TraceFile>& file,
                                              double timeout_s);

// Collective: writes every rank's `events` into rank 0's `file` (header first) and closes it.
// `format` must be the file's format on every rank.
void write_gathered_trace(MPI_Comm world, harness::TraceFormat format,
                          const std::vector<harness::TraceEvent>& events,
                          std::optional<harness::TraceFile>& file, double timeout_s);

}  // namespace ddl
