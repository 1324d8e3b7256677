// What split(color, key) (communicator.hpp) makes of every rank's (color, key), the same on every
// backend that keeps its own rank table (loopback, simulator): the ranks of `color`, ordered by
// key and then by their rank in the parent, as world ranks, and where `me` lands among them.
#pragma once

#include <array>
#include <vector>

namespace ddl {

struct SplitGroup {
  std::vector<int> members;  // world ranks, in the new communicator's rank order
  int rank = 0;              // the new rank of the parent's rank `me`
};

// `color_key[p]`: parent rank p's (color, key); `parent_members[p]`: its world rank; `me`: this
// rank in the parent, whose color is `color` (>= 0).
SplitGroup split_members(const std::vector<std::array<int, 2>>& color_key,
                         const std::vector<int>& parent_members, int me, int color);

}  // namespace ddl
