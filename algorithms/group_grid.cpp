#include "algorithms/group_grid.hpp"

#include <algorithm>
#include <set>
#include <string>

#include "algorithms/error.hpp"

namespace ddl {

Dims group_grid(const Dims& machine, const std::vector<int>& members) {
  if (members.empty()) throw InvalidArgument("group_grid: a group has at least one member");
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] < 0 || members[i] >= machine.rank_count())
      throw InvalidArgument("group_grid: member " + std::to_string(members[i]) +
                            " is outside the machine grid " + machine.to_string());
    if (i > 0 && members[i] <= members[i - 1])
      throw InvalidArgument("group_grid: members must be strictly increasing world ranks");
  }
  // The coordinates the members take along each machine dimension.
  std::vector<std::set<int>> taken(static_cast<std::size_t>(machine.count()));
  for (int member : members) {
    const std::vector<int> c = machine.coords(member);
    for (std::size_t d = 0; d < c.size(); ++d) taken[d].insert(c[d]);
  }
  // Distinct members inside the product of these sets fill it exactly when the sizes agree.
  std::size_t product = 1;
  for (const std::set<int>& t : taken) product *= t.size();
  const int n = static_cast<int>(members.size());
  if (product != members.size()) return Dims::flat(n);
  std::vector<int> extents;
  for (const std::set<int>& t : taken)
    if (t.size() > 1) extents.push_back(static_cast<int>(t.size()));
  return extents.empty() ? Dims::flat(1) : Dims(extents);
}

}  // namespace ddl
