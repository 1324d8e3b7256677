#include "algorithms/step_runs.hpp"

#include <algorithm>

namespace ddl {

namespace {

bool alike(const std::vector<Transfer>& a, const std::vector<Transfer>& b, std::size_t elem) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t larger = std::max(a[i].bytes, b[i].bytes);
    const std::size_t smaller = std::min(a[i].bytes, b[i].bytes);
    // An empty transfer sends no message at all: not alike to a short one, which pays latency.
    const bool empty_a = a[i].bytes == 0, empty_b = b[i].bytes == 0;
    if (a[i].peer != b[i].peer || empty_a != empty_b || larger - smaller > elem) return false;
  }
  return true;
}

bool alike_at(std::span<const Schedule> schedules, std::size_t t, std::size_t elem) {
  for (const Schedule& s : schedules) {
    const bool here = t < s.size(), before = t - 1 < s.size();
    if (here != before) return false;
    if (here && !alike(s[t - 1], s[t], elem)) return false;
  }
  return true;
}

}  // namespace

bool alike(const Step& a, const Step& b, std::size_t elem_size) {
  return a.reduce == b.reduce && alike(a.sends, b.sends, elem_size) &&
         alike(a.recvs, b.recvs, elem_size);
}

std::vector<StepRun> alike_runs(std::span<const Schedule> schedules, std::size_t elem_size) {
  std::size_t steps = 0;
  for (const Schedule& s : schedules) steps = std::max(steps, s.size());
  std::vector<StepRun> runs;
  for (std::size_t t = 0; t < steps; ++t) {
    if (t == 0 || !alike_at(schedules, t, elem_size)) runs.push_back({t, t});
    runs.back().last = t + 1;
  }
  return runs;
}

}  // namespace ddl
