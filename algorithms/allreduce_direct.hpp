// The pure chunking of allreduce_direct, exposed for tests.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

// Chunk size when Options::segment_bytes is 0: the chunk and the own bytes the reduction reads
// beside it stay in a core's cache. Measured on this project's test machine (4 MB of L2 per
// core; experiments/direct_chunks.sh, results/direct_chunks.txt), 2 ranks at 16-256 MB on both page
// kinds: 256 KB best in four of six cases and within 2 % of the best in the other two, 128-512 KB
// within 14 %, 1-2 MB 23-49 % slower.
constexpr std::size_t kDirectChunkBytes = std::size_t{256} << 10;

// `block` cut into consecutive chunks of `chunk_bytes` (kDirectChunkBytes when 0) rounded down to
// whole elements (at least one), the last one shorter; none for an empty block.
std::vector<Block> direct_chunks(Block block, std::size_t chunk_bytes, std::size_t elem_size);

}  // namespace ddl
