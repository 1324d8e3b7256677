#include "planner/search.hpp"

#include <algorithm>
#include <numeric>

#include "algorithms/error.hpp"
#include "algorithms/plan.hpp"

namespace ddl::planner {

std::vector<std::size_t> anchor_sizes(const std::vector<std::size_t>& sizes) {
  std::set<std::size_t> anchors;
  if (sizes.empty()) return {};
  for (std::size_t k = 0; k < 4; ++k) anchors.insert(sizes[k * (sizes.size() - 1) / 3]);
  return {anchors.begin(), anchors.end()};
}

std::set<std::string> shortlist(const Pricing& pricing, const std::vector<std::string>& candidates,
                                const std::vector<std::size_t>& anchors, std::size_t keep,
                                const SearchSpace& space,
                                const std::function<void(std::size_t bytes)>& priced) {
  const std::vector<std::string> always = every_size_candidates(pricing.collective);
  std::set<std::string> out(always.begin(), always.end());
  for (const std::size_t bytes : anchors) {
    const auto prices = pricing.price_all(candidates, bytes);
    for (std::size_t i = 0; i < std::min(keep, prices.size()); ++i) {
      out.insert(prices[i].second);
      for (const std::string& v : candidate_variants(prices[i].second, space)) out.insert(v);
    }
    if (priced) priced(bytes);
  }
  return out;
}

std::vector<SizeTrial> confirmation_trials(const Pricing& pricing,
                                           const std::set<std::string>& shortlisted,
                                           const std::vector<std::size_t>& sizes,
                                           std::size_t confirm) {
  const std::vector<std::string> listed(shortlisted.begin(), shortlisted.end());
  std::vector<SizeTrial> trials;
  for (const std::size_t bytes : sizes) {
    const auto priced = pricing.price_all(listed, bytes);
    std::vector<double> prices;
    for (const auto& [price, algo] : priced) prices.push_back(price);
    SizeTrial trial;
    trial.bytes = bytes;
    const std::size_t n = confirmed_count(prices, confirm);
    for (std::size_t i = 0; i < n; ++i) {
      trial.algorithms.push_back(priced[i].second);
      trial.model_us.push_back(priced[i].first * 1e6);
    }
    trial.alpha_beta = pricing.alpha_beta_choice(bytes);
    const auto& algos = trial.algorithms;
    if (std::find(algos.begin(), algos.end(), trial.alpha_beta) == algos.end()) {
      trial.algorithms.push_back(trial.alpha_beta);
      trial.model_us.push_back(pricing.price(trial.alpha_beta, bytes) * 1e6);
    }
    trials.push_back(std::move(trial));
  }
  return trials;
}

std::vector<SimulationJob> pending_jobs(const std::vector<SizeTrial>& trials) {
  std::vector<SimulationJob> jobs;
  for (const SizeTrial& t : trials)
    if (t.simulated_s.size() < t.algorithms.size())
      jobs.push_back(
          {t.bytes, std::vector<std::string>(
                        t.algorithms.begin() + static_cast<std::ptrdiff_t>(t.simulated_s.size()),
                        t.algorithms.end())});
  return jobs;
}

void simulate_pending(std::vector<SizeTrial>& trials, const Simulator& simulate) {
  const std::vector<SimulationJob> jobs = pending_jobs(trials);
  if (jobs.empty()) return;
  const std::vector<std::vector<double>> times = simulate(jobs);
  if (times.size() != jobs.size())
    throw BackendError("the simulation gave times for " + std::to_string(times.size()) +
                       " sizes, not " + std::to_string(jobs.size()));
  std::size_t j = 0;
  for (SizeTrial& t : trials) {
    if (t.simulated_s.size() == t.algorithms.size()) continue;
    if (times[j].size() != t.algorithms.size() - t.simulated_s.size())
      throw BackendError("the simulation of " + std::to_string(t.bytes) + " B gave " +
                         std::to_string(times[j].size()) + " times for " +
                         std::to_string(t.algorithms.size() - t.simulated_s.size()) +
                         " algorithms");
    t.simulated_s.insert(t.simulated_s.end(), times[j].begin(), times[j].end());
    ++j;
  }
}

std::size_t add_segment_variants(std::vector<SizeTrial>& trials, const Pricing& pricing,
                                 const SearchSpace& space) {
  std::size_t added = 0;
  for (SizeTrial& t : trials) {
    const std::vector<std::string> algos = t.algorithms;
    std::vector<std::size_t> order(t.simulated_s.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      return t.simulated_s[x] < t.simulated_s[y];
    });
    for (std::size_t k = 0; k < std::min(kSegmentBases, order.size()); ++k)
      for (const std::string& v : segment_variants(algos[order[k]], pricing.dims, t.bytes, space))
        if (std::find(algos.begin(), algos.end(), v) == algos.end()) {
          t.algorithms.push_back(v);
          t.model_us.push_back(pricing.price(v, t.bytes) * 1e6);
          ++added;
        }
  }
  return added;
}

PlanFile choose_plan(const std::vector<SizeTrial>& trials, int ranks, std::size_t candidates,
                     Collective collective) {
  PlanFile file;
  std::vector<std::size_t> sizes;
  std::vector<std::string> choices;
  for (const SizeTrial& trial : trials) {
    const std::vector<double>& t = trial.simulated_s;
    const std::vector<std::string>& algos = trial.algorithms;
    if (t.empty() || t.size() != algos.size())
      throw InvalidArgument("choose_plan: " + std::to_string(trial.bytes) +
                            " B is not simulated (simulate_pending first)");
    const double fastest = *std::min_element(t.begin(), t.end());
    std::size_t best = 0;
    bool found = false;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] > fastest * (1 + kTie)) continue;
      if (!found || algos[k].size() < algos[best].size() ||
          (algos[k].size() == algos[best].size() && algos[k] < algos[best]))
        best = k;
      found = true;
    }
    const auto ab = static_cast<std::size_t>(
        std::find(algos.begin(), algos.end(), trial.alpha_beta) - algos.begin());
    if (ab == algos.size())
      throw InvalidArgument("choose_plan: the α-β-γ choice at " + std::to_string(trial.bytes) +
                            " B, " + trial.alpha_beta + ", is not simulated");
    sizes.push_back(trial.bytes);
    choices.push_back(algos[best]);
    file.evidence.push_back({trial.bytes, algos[best], t[best] * 1e6, trial.model_us[best],
                             trial.alpha_beta, t[ab] * 1e6, candidates, algos.size()});
  }
  file.plan = plan_from_choices(ranks, sizes, choices, collective);
  file.plan.validate();
  return file;
}

}  // namespace ddl::planner
