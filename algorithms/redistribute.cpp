#include "algorithms/redistribute.hpp"

#include <algorithm>

#include "algorithms/error.hpp"

namespace ddl {

namespace {

Block overlap(Block a, Block b) {
  const std::size_t begin = std::max(a.offset, b.offset);
  const std::size_t end = std::min(a.offset + a.bytes, b.offset + b.bytes);
  return end > begin ? Block{begin, end - begin} : Block{begin, 0};
}

// Every (peer, bytes) of rank me's pieces in other ranks' blocks, and of other ranks' pieces in
// me's block: the transfers of the step one way; the other way swaps sends and receives.
void transfers(const Holdings& held, int me, std::size_t count, std::size_t elem_size,
               std::vector<Transfer>& mine_out, std::vector<Transfer>& theirs_in) {
  const auto p = held.size();
  DDL_CHECK(me >= 0 && static_cast<std::size_t>(me) < p, "redistribute: rank out of range");
  const std::vector<Block> blocks = partition(count, p, elem_size);
  // Blocks are contiguous and in order: the first one a byte range meets is found by its end.
  auto first_block = [&](Block piece) {
    return static_cast<std::size_t>(
        std::upper_bound(blocks.begin(), blocks.end(), piece.offset,
                         [](std::size_t at, const Block& b) { return at < b.offset + b.bytes; }) -
        blocks.begin());
  };
  for (const Block& piece : held[static_cast<std::size_t>(me)])
    for (std::size_t r = first_block(piece); r < p && blocks[r].offset < piece.offset + piece.bytes;
         ++r) {
      const Block part = overlap(piece, blocks[r]);
      if (part.bytes > 0 && static_cast<int>(r) != me)
        mine_out.push_back({static_cast<int>(r), part.offset, part.bytes});
    }
  const Block own = blocks[static_cast<std::size_t>(me)];
  for (std::size_t k = 0; k < p; ++k) {
    if (static_cast<int>(k) == me) continue;
    for (const Block& piece : held[k]) {
      const Block part = overlap(piece, own);
      if (part.bytes > 0) theirs_in.push_back({static_cast<int>(k), part.offset, part.bytes});
    }
  }
}

}  // namespace

Step pieces_to_blocks(const Holdings& held, int me, std::size_t count, std::size_t elem_size) {
  Step step;
  step.phase = "to_blocks";
  transfers(held, me, count, elem_size, step.sends, step.recvs);
  return step;
}

Step blocks_to_pieces(const Holdings& held, int me, std::size_t count, std::size_t elem_size) {
  Step step;
  step.phase = "to_pieces";
  transfers(held, me, count, elem_size, step.recvs, step.sends);
  return step;
}

}  // namespace ddl
