#include "algorithms/channels.hpp"

#include <algorithm>
#include <string>

namespace ddl {

std::vector<int> channel_order(int ranks, int node_size, int channel) {
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(ranks));
  for (int node = 0; node < ranks / node_size; ++node)
    for (int i = 0; i < node_size; ++i)
      order.push_back(node * node_size + (channel + i) % node_size);
  return order;
}

std::vector<RingLane> channel_lanes(int ranks, int node_size, int channels, int me,
                                    std::size_t count, std::size_t elem_size) {
  if (channels < 1)
    throw InvalidArgument("ring: channels must be >= 1, got " + std::to_string(channels));
  if (node_size < 1 || ranks % node_size != 0)
    throw InvalidArgument("ring: nodes of " + std::to_string(node_size) + " ranks do not divide " +
                          std::to_string(ranks) + " ranks");
  const std::vector<Block> slices = partition(count, static_cast<std::size_t>(channels), elem_size);
  std::vector<RingLane> lanes;
  for (int c = 0; c < channels; ++c) {
    Group group{channel_order(ranks, node_size, c), 0};
    group.me = static_cast<int>(std::find(group.ranks.begin(), group.ranks.end(), me) -
                                group.ranks.begin());
    lanes.push_back({std::move(group), slices[static_cast<std::size_t>(c)]});
  }
  return lanes;
}

}  // namespace ddl
