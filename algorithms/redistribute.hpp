// Reduce-scatter and allgather by algorithms whose pieces are not ddl's blocks. registry.hpp's
// contract puts rank r's share at block r of partition(count, p); a multi-dimensional or
// halving-doubling reduce-scatter leaves each rank a piece of its own shape (the piece a grid
// walk or a bit order gives it, in several slices), so one more step moves every piece's bytes
// to the owners of the blocks they fall in; an allgather starts with the mirror step. At most a
// few messages per rank (a piece meets one block, or two where the boundaries differ), of S/p
// bytes in all: α + S/p β beside a reduce-scatter's (p-1)/p S β.
//
// Vocabulary: a *piece* is a byte range a rank holds reduced after the reduce-scatter (or must
// hold before the allgather); *holdings* are every rank's pieces, which cover the buffer once.
#pragma once

#include <cstddef>
#include <vector>

#include "algorithms/schedule.hpp"

namespace ddl {

using Holdings = std::vector<std::vector<Block>>;  // [rank] -> that rank's pieces, in order

// Rank `me`'s part of the step that sends every piece's bytes to the owners of the blocks
// (partition(count, p), p = holdings.size()) they overlap; nothing is reduced. The sends of one
// rank to another go in the order of its pieces, as the receiver lists them.
Step pieces_to_blocks(const Holdings& held, int me, std::size_t count, std::size_t elem_size);
// The mirror image: each block's bytes from its owner to the ranks whose pieces hold them.
Step blocks_to_pieces(const Holdings& held, int me, std::size_t count, std::size_t elem_size);

}  // namespace ddl
