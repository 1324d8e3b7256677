#include "workloads/llm/step_trace.hpp"

#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"

namespace ddl::llm {

namespace {

// Thread ids: compute 0, a group's stream 1 + GroupKind, sends and receives after them.
constexpr int kCompute = 0, kSends = 6, kReceives = 7;

int thread_of(const Op& op) {
  switch (op.kind) {
    case Op::Kind::compute: return kCompute;
    case Op::Kind::collective: return 1 + static_cast<int>(op.group);
    case Op::Kind::send: return kSends;
    case Op::Kind::recv: return kReceives;
  }
  return kCompute;
}

std::string thread_name(int thread) {
  if (thread == kCompute) return "compute";
  if (thread == kSends) return "pp sends";
  if (thread == kReceives) return "pp receives";
  return std::string(to_string(static_cast<GroupKind>(thread - 1))) + " collectives";
}

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

}  // namespace

void write_step_trace(std::ostream& out, const std::vector<TracedRank>& ranks) {
  nlohmann::json events = nlohmann::json::array();
  for (const TracedRank& r : ranks) {
    DDL_CHECK(r.ops && r.step && r.step->start.size() == r.ops->size(),
              "write_step_trace: a rank's ops and its played step");
    events.push_back(metadata("process_name", r.rank, 0, r.name));
    events.push_back({{"name", "process_sort_index"},
                      {"ph", "M"},
                      {"pid", r.rank},
                      {"args", {{"sort_index", r.rank}}}});
    bool used[kReceives + 1] = {};
    for (std::size_t i = 0; i < r.ops->size(); ++i) {
      const Op& op = (*r.ops)[i];
      const int tid = thread_of(op);
      used[tid] = true;
      nlohmann::json args;
      switch (op.kind) {
        case Op::Kind::compute: args = {{"flops", op.flops}, {"bytes", op.bytes}}; break;
        case Op::Kind::collective:
          args = {{"collective", to_string(op.collective)}, {"bytes", op.size}};
          break;
        case Op::Kind::send:
        case Op::Kind::recv: args = {{"peer", op.peer}, {"bytes", op.size}}; break;
      }
      events.push_back({{"name", op.label},
                        {"cat", thread_name(tid)},
                        {"ph", "X"},
                        {"pid", r.rank},
                        {"tid", tid},
                        {"ts", r.step->start[i] * 1e6},
                        {"dur", (r.step->end[i] - r.step->start[i]) * 1e6},
                        {"args", std::move(args)}});
    }
    for (int tid = 0; tid <= kReceives; ++tid)
      if (used[tid]) events.push_back(metadata("thread_name", r.rank, tid, thread_name(tid)));
  }
  out << nlohmann::json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump()
      << "\n";
}

}  // namespace ddl::llm
