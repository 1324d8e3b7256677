#include "algorithms/plan.hpp"

#include <string>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

void Plan::validate() const {
  if (ranks < 1) throw InvalidArgument("plan: ranks must be >= 1, got " + std::to_string(ranks));
  if (entries.empty()) throw InvalidArgument("plan: no entries");
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const PlanEntry& e = entries[i];
    const std::string where = "plan entry " + std::to_string(i) + " (" + e.algorithm + ")";
    if (e.min_bytes > e.max_bytes)
      throw InvalidArgument(where + ": min_bytes " + std::to_string(e.min_bytes) + " > max_bytes " +
                            std::to_string(e.max_bytes));
    if (i > 0 && e.min_bytes <= entries[i - 1].max_bytes)
      throw InvalidArgument(where + ": starts at " + std::to_string(e.min_bytes) +
                            ", inside or before the previous entry (up to " +
                            std::to_string(entries[i - 1].max_bytes) + ")");
    const Algorithm& a = find_algorithm(e.algorithm);  // throws naming the bad token
    if (a.collective != collective || a.picks_others) {
      const std::string name(to_string(collective));
      throw InvalidArgument(where + ": not " + (name[0] == 'a' ? "an " : "a ") + name +
                            " algorithm `auto` can run");
    }
  }
}

const PlanEntry& Plan::entry_for(std::size_t bytes) const {
  DDL_CHECK(!entries.empty(), "entry_for on an empty plan");
  const PlanEntry* best = &entries.front();
  for (const PlanEntry& e : entries)
    if (e.min_bytes <= bytes) best = &e;
  return *best;
}

Plan plan_from_choices(int ranks, const std::vector<std::size_t>& sizes,
                       const std::vector<std::string>& choices, Collective collective) {
  DDL_CHECK(sizes.size() == choices.size(), "one choice per size");
  Plan plan;
  plan.ranks = ranks;
  plan.collective = collective;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!plan.entries.empty() && plan.entries.back().algorithm == choices[i])
      plan.entries.back().max_bytes = sizes[i];
    else
      plan.entries.push_back({sizes[i], sizes[i], choices[i]});
  }
  return plan;
}

}  // namespace ddl
