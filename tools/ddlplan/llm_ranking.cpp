#include "tools/ddlplan/llm_ranking.hpp"

#include <algorithm>
#include <cstdio>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"

namespace ddl::planner {

namespace {

std::string number(const char* format, double v) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

}  // namespace

std::vector<double> prediction_values(const std::vector<llm::PlayedStep>& stages) {
  std::size_t slowest = 0;
  for (std::size_t k = 0; k < stages.size(); ++k)
    if (stages[k].finish - stages[k].begin > stages[slowest].finish - stages[slowest].begin)
      slowest = k;
  const llm::PlayedStep& s = stages.at(slowest);
  return {s.finish - s.begin, static_cast<double>(slowest),
          s.compute,          s.exposed_s("pp"),
          s.exposed_s("tp"),  s.exposed_s("dp"),
          s.exposed_s("ep")};
}

void read_prediction(const std::vector<double>& v, RankedLayout& into) {
  if (v.size() != kPredictionValues)
    throw BackendError("predicting " + into.layout.to_string() + ": " + std::to_string(v.size()) +
                       " figures came back, not " + std::to_string(kPredictionValues));
  into.step_s = v[0];
  into.slowest_stage = static_cast<std::size_t>(v[1]);
  into.compute_s = v[2];
  into.exposed_pp_s = v[3], into.exposed_tp_s = v[4], into.exposed_dp_s = v[5];
  into.exposed_ep_s = v[6];
}

void print_ranking(std::ostream& out, const std::vector<RankedLayout>& rows, std::size_t top) {
  top = std::min(top, rows.size());
  std::size_t width = 6;
  for (std::size_t k = 0; k < top; ++k) width = std::max(width, rows[k].layout.to_string().size());
  out << "# " << std::string(width - 6, ' ') << "layout     step_s  tokens_per_s   mfu_%  stage"
      << "  compute_s  exposed_pp_s  exposed_tp_s  exposed_dp_s  exposed_ep_s  memory_GB\n";
  for (std::size_t k = 0; k < top; ++k) {
    const RankedLayout& r = rows[k];
    const std::string name = r.layout.to_string();
    // %g: a step is 40 us for small_gpt on a node, seconds for Llama on hundreds of GPUs.
    out << "  " << std::string(width - name.size(), ' ') << name << number("%11.5g", r.step_s)
        << number("%14.0f", r.tokens_per_s) << number("%8.2f", 100 * r.mfu)
        << number("%7.0f", static_cast<double>(r.slowest_stage)) << number("%11.4g", r.compute_s);
    for (const double e : {r.exposed_pp_s, r.exposed_tp_s, r.exposed_dp_s, r.exposed_ep_s})
      out << number("%14.4g", e);
    out << number("%11.4g", r.memory_bytes / 1e9) << "\n";
  }
}

void write_ranking_csv(const std::string& path, const std::vector<RankedLayout>& rows) {
  AtomicOutput file(path);
  std::ostream& out = file.stream();
  out << "rank,layout,step_s,tokens_per_s,mfu_pct,slowest_stage,compute_s,exposed_pp_s,"
         "exposed_tp_s,exposed_dp_s,exposed_ep_s,memory_gb\n";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const RankedLayout& r = rows[k];
    out << k + 1 << ",\"" << r.layout.to_string() << "\"," << number("%.9g", r.step_s) << ","
        << number("%.9g", r.tokens_per_s) << "," << number("%.6g", 100 * r.mfu) << ","
        << r.slowest_stage;
    for (const double v :
         {r.compute_s, r.exposed_pp_s, r.exposed_tp_s, r.exposed_dp_s, r.exposed_ep_s})
      out << "," << number("%.9g", v);
    out << "," << number("%.6g", r.memory_bytes / 1e9) << "\n";
  }
  file.commit();
}

}  // namespace ddl::planner
