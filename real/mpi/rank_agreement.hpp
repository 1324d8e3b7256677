// Every rank parses its own command line; before any collective runs, the ranks compare what
// they parsed. A rank that could not parse its arguments, or parsed a different run (other
// sizes, another algorithm), would otherwise deadlock the sweep. Rank 0 alone reports.
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

namespace ddl {

struct LocalArguments {
  std::optional<std::string> error;  // the parse error on this rank, if any
  std::string canonical;             // the parsed argument set, one stable spelling
};

// Collective over `comm` (blocking: it runs before the bounded communicator exists). Returns
// the message rank 0 should print and the run must stop with (every rank gets the same
// verdict), or nothing when every rank parsed the same arguments. The message names the
// lowest rank that failed or differs from rank 0.
// Its one MPI_Iallgather is bounded by timeout_s (ddl::Timeout).
std::optional<std::string> disagreement(MPI_Comm comm, const LocalArguments& mine,
                                        double timeout_s = 300);

// FNV-1a: the canonical strings are compared by hash; only the differing ones are shown.
unsigned long long hash_text(const std::string& text);

// One rank's LocalArguments as every rank received them.
struct GatheredArguments {
  bool failed = false;
  unsigned long long hash = 0;  // of the whole text
  std::string text;             // the error or the canonical text, cut at 999 bytes
};

// Collective over `comm`: every rank's arguments on every rank, in rank order. One MPI_Iallgather
// of fixed-size records, bounded by timeout_s (ddl::Timeout naming `what`). disagreement() is
// built on it; callers that compare something else (a collective call's signature,
// call_agreement.hpp) word their own verdict.
std::vector<GatheredArguments> gather_arguments(MPI_Comm comm, const LocalArguments& mine,
                                                double timeout_s, const std::string& what);

}  // namespace ddl
