// The pure chunking of allreduce_direct, exposed for tests.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

// Chunk size when Options::segment_bytes is 0: half of a core's 2 MB-class L2 leaves room for
// the own bytes the reduction reads beside it. Measured on this project's test machine (4 MB
// L2): 128-512 KB chunks all within 10 % at 16-256 MB, 2 MB chunks 25-40 % slower
// (experiments/results/bench_real_direct_chunks.txt).
constexpr std::size_t kDirectChunkBytes = std::size_t{256} << 10;

// `block` cut into consecutive chunks of `chunk_bytes` (kDirectChunkBytes when 0) rounded down to
// whole elements (at least one), the last one shorter; none for an empty block.
std::vector<Block> direct_chunks(Block block, std::size_t chunk_bytes, std::size_t elem_size);

}  // namespace ddl
