// A layout's Chakra trace on disk: one file per rank, PREFIX.RANK.et (the naming of Chakra's
// converters and of ASTRA-sim's workload option), each read by read_chakra (chakra.hpp).
#pragma once

#include <string>
#include <vector>

#include "workloads/llm/chakra.hpp"

namespace ddl::llm {

// PREFIX.RANK.et
std::string chakra_file(const std::string& prefix, int rank);

// Every rank's file of a trace, in rank order: `path` is one FILE (a set of one), a PREFIX whose
// PREFIX.0.et .. PREFIX.(n-1).et all exist, or a folder holding exactly one such set.
// InvalidArgument naming the missing file of a gap, a folder with no set or several, a file whose
// ddl_rank is not its place in the set, or files whose ddl_layout differ.
std::vector<ChakraRank> read_chakra_ranks(const std::string& path);

}  // namespace ddl::llm
