#include "algorithms/measured_choice.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

namespace {

void validate(const ProbeSpec& spec) {
  if (spec.candidates.empty()) throw InvalidArgument("measure_choice: no candidate algorithms");
  if (spec.sizes.empty()) throw InvalidArgument("measure_choice: no sizes to measure");
  for (std::size_t i = 0; i < spec.sizes.size(); ++i) {
    if (spec.sizes[i] % sizeof(float) != 0)
      throw InvalidArgument("measure_choice: size " + std::to_string(spec.sizes[i]) +
                            " is not a whole number of float32 elements");
    if (i > 0 && spec.sizes[i] <= spec.sizes[i - 1])
      throw InvalidArgument("measure_choice: sizes must ascend, " + std::to_string(spec.sizes[i]) +
                            " follows " + std::to_string(spec.sizes[i - 1]));
  }
  if (spec.repetitions < 1 || spec.batch < 1)
    throw InvalidArgument("measure_choice: repetitions and batch must be at least 1");
}

// Every rank here before any leaves: a one-element allreduce.
void together(Communicator& comm) {
  double token = 0;
  find_algorithm("ring").run(comm, {&token, sizeof token}, DType::float64, ReduceOp::max, {});
}

// Untimed runs ahead of a candidate's timed ones: its scratch, pages and connections warm, as
// they are in a training loop that calls the same collective again and again.
constexpr int kWarmups = 2;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

bool measured_choice_applies(const Options& o) {
  return o.segment_bytes == 0 && o.rings == 1 && o.channels == 1 && o.chunks == 1 &&
         o.methods.empty() && o.hd_order == HdOrder::near;
}

std::vector<std::size_t> probe_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = 1024; bytes <= (std::size_t{16} << 20); bytes *= 4)
    sizes.push_back(bytes);
  return sizes;
}

std::vector<std::string> probe_candidates(Communicator& comm, const Dims& grid) {
  const bool shared = shares_memory_with_all(comm);
  const NativeLibrary* library = comm.native_library();
  CostParams costs = uniform_costs(grid);
  if (shared) mark_shared_memory(costs, 0);
  Options options;
  options.dims = grid;
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms()) {
    if (a.collective != Collective::allreduce || a.picks_others || a.needs_in_switch) continue;
    if (a.needs_shared_memory && !shared) continue;
    if (a.needs_native_library) {
      if (library && library->native_supports(DType::float32)) names.push_back(a.name);
      continue;
    }
    const double t = a.cost(CostQuery{grid, std::size_t{1} << 20, options, costs, nullptr});
    if (std::isfinite(t)) names.push_back(a.name);
  }
  return names;
}

std::vector<std::string> choose_measured(const std::vector<std::string>& candidates,
                                         const std::vector<std::vector<double>>& seconds,
                                         double library_margin) {
  const auto native = std::find(candidates.begin(), candidates.end(), "native");
  std::vector<std::string> chosen;
  for (const std::vector<double>& at : seconds) {
    if (at.size() != candidates.size())
      throw InvalidArgument("choose_measured: a size has " + std::to_string(at.size()) +
                            " times for " + std::to_string(candidates.size()) + " candidates");
    std::size_t best = 0;
    for (std::size_t c = 1; c < at.size(); ++c)
      if (at[c] < at[best]) best = c;
    if (native != candidates.end()) {
      const auto n = static_cast<std::size_t>(native - candidates.begin());
      if (at[n] <= at[best] * (1 + library_margin)) best = n;
    }
    chosen.push_back(candidates[best]);
  }
  return chosen;
}

MeasuredChoice measure_choice(Communicator& comm, const ProbeSpec& spec) {
  validate(spec);
  const std::size_t n = spec.candidates.size();
  std::vector<float> buffer(spec.sizes.back() / sizeof(float), 0.0f);
  Options options;
  options.dims = spec.grid;
  std::vector<const Algorithm*> runs;
  for (const std::string& name : spec.candidates) runs.push_back(&find_algorithm(name));

  // samples[(i * reps + r) * n + c]: this rank's time of repetition r of candidate c at size
  // i; then, elementwise, the slowest rank's (one allreduce for the whole probe).
  const auto reps = static_cast<std::size_t>(spec.repetitions);
  std::vector<double> samples(spec.sizes.size() * reps * n);
  for (std::size_t i = 0; i < spec.sizes.size(); ++i) {
    const MutView data{buffer.data(), spec.sizes[i]};
    for (std::size_t c = 0; c < n; ++c)
      for (int w = -kWarmups; w < spec.repetitions; ++w) {
        together(comm);
        const double start = comm.now();
        for (int b = 0; b < spec.batch; ++b)
          runs[c]->run(comm, data, DType::float32, ReduceOp::sum, options);
        if (w >= 0)
          samples[(i * reps + static_cast<std::size_t>(w)) * n + c] =
              (comm.now() - start) / spec.batch;
      }
  }
  find_algorithm("ring").run(comm, {samples.data(), samples.size() * sizeof(double)},
                             DType::float64, ReduceOp::max, {});
  std::vector<std::vector<double>> seconds(spec.sizes.size(), std::vector<double>(n));
  for (std::size_t i = 0; i < spec.sizes.size(); ++i)
    for (std::size_t c = 0; c < n; ++c) {
      std::vector<double> of(reps);
      for (std::size_t r = 0; r < reps; ++r) of[r] = samples[(i * reps + r) * n + c];
      seconds[i][c] = median(of);
    }

  MeasuredChoice out;
  out.candidates = spec.candidates;
  const std::vector<std::string> chosen =
      choose_measured(spec.candidates, seconds, spec.library_margin);
  for (std::size_t i = 0; i < spec.sizes.size(); ++i)
    out.sizes.push_back({spec.sizes[i], seconds[i], chosen[i]});
  out.plan = plan_from_choices(comm.size(), spec.sizes, chosen);
  return out;
}

}  // namespace ddl
