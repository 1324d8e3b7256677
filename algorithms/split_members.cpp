#include "algorithms/split_members.hpp"

#include <algorithm>

namespace ddl {

SplitGroup split_members(const std::vector<std::array<int, 2>>& color_key,
                         const std::vector<int>& parent_members, int me, int color) {
  std::vector<int> order;  // the parent's ranks of the color, in the new rank order
  for (std::size_t p = 0; p < color_key.size(); ++p)
    if (color_key[p][0] == color) order.push_back(static_cast<int>(p));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return color_key[static_cast<std::size_t>(a)][1] < color_key[static_cast<std::size_t>(b)][1];
  });
  SplitGroup group;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (order[i] == me) group.rank = static_cast<int>(i);
    group.members.push_back(parent_members[static_cast<std::size_t>(order[i])]);
  }
  return group;
}

}  // namespace ddl
