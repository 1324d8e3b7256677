// The step timeline (play on prices) against hand-computed timelines: 1F1B's makespan and bubble
// with the stages' first ranks standing for their stages, a group's collectives one after
// another on its stream beside another group's, a message ending its price after the later of
// its two sides; and what it refuses. Prices are sums of halves: every time here is exact.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "workloads/llm/step_timeline.hpp"

using namespace ddl;
using namespace ddl::llm;

namespace {

Op compute_op(const std::string& label, std::vector<std::size_t> after = {}) {
  Op op;
  op.label = label;
  op.after = std::move(after);
  return op;
}

Op comm_op(Op::Kind kind, const std::string& label, std::vector<std::size_t> after = {}) {
  Op op = compute_op(label, std::move(after));
  op.kind = kind;
  return op;
}

double exposed(const PlayedStep& s, const char* cause) {
  return s.exposed.count(cause) ? s.exposed.at(cause) : 0.0;
}

}  // namespace

TEST_CASE("step timeline: 1F1B takes (m + p - 1)(F + B), the first stage idles (p - 1)(F + B)",
          "[llm][timeline]") {
  const Transformer model = read_transformer(std::string(DDL_LLM_MODELS) + "/small_gpt.json");
  const double forward = 1.0, backward = 2.0;
  // One layer a stage: its two blocks share the pass's time; logits, optimizer and every
  // communication take none.
  const auto seconds = [&](const Op& op) {
    if (op.kind != Op::Kind::compute || op.label.find("logits") != std::string::npos ||
        op.label == "optimizer")
      return 0.0;
    return (op.label[0] == 'F' ? forward : backward) / 2;
  };
  for (int m : {1, 4, 8}) {
    const int p = 4;
    const ParallelLayout layout = parse_layout("pp=4,dp=2,mb=" + std::to_string(m));
    std::vector<std::vector<Op>> graphs;
    std::vector<int> ranks;
    for (int stage = 0; stage < p; ++stage) {
      ranks.push_back(rank_at(layout, {0, 0, stage}));
      graphs.push_back(step_graph(model, layout, ranks.back()));
    }
    const std::vector<PlayedStep> steps = play_priced(graphs, ranks, seconds);
    INFO("m=" << m);
    double step = 0;
    for (const PlayedStep& s : steps) step = std::max(step, s.finish - s.begin);
    CHECK(step == (m + p - 1) * (forward + backward));
    CHECK(exposed(steps[0], "pp") == (p - 1) * (forward + backward));
    for (const PlayedStep& s : steps) CHECK(s.compute == m * (forward + backward));
  }
}

TEST_CASE("step timeline: a group's collectives queue on its stream, another group's run beside",
          "[llm][timeline]") {
  std::vector<Op> ops{comm_op(Op::Kind::collective, "a"), comm_op(Op::Kind::collective, "b"),
                      comm_op(Op::Kind::collective, "c"), compute_op("after b", {1}),
                      compute_op("after c", {2})};
  ops[2].group = GroupKind::dp;  // a and b on tp
  const auto seconds = [](const Op& op) {
    return op.label == "a" ? 2.0 : op.label == "b" ? 3.0 : op.label == "c" ? 0.5 : 1.0;
  };
  const PlayedStep s = play_priced({ops}, {0}, seconds).at(0);
  CHECK(s.start[1] == 2.0);  // behind a
  CHECK(s.end[1] == 5.0);
  CHECK(s.start[2] == 0.0);  // on its own stream
  CHECK(s.end[2] == 0.5);
  CHECK(s.start[3] == 5.0);
  CHECK(s.start[4] == 6.0);
  // The compute stream idled 5 s before its first op, for b: 3 s b's own, 2 s waiting on a.
  CHECK(exposed(s, "tp") == 5.0);
  CHECK(exposed(s, "dp") == 0.0);
  CHECK(s.finish == 7.0);
}

TEST_CASE("step timeline: a message ends its price after the later of its send and receive",
          "[llm][timeline]") {
  std::vector<Op> sender{compute_op("work"), comm_op(Op::Kind::send, "send", {0})},
      receiver{comm_op(Op::Kind::recv, "recv"), compute_op("use", {0})};
  sender[1].peer = 7;
  receiver[0].peer = 3;
  sender[1].size = receiver[0].size = 64;
  const auto seconds = [](const Op& op) { return op.kind == Op::Kind::send ? 0.5 : 1.0; };
  const std::vector<PlayedStep> s = play_priced({sender, receiver}, {3, 7}, seconds);
  CHECK(s[0].end[1] == 1.5);
  CHECK(s[1].end[0] == 1.5);
  CHECK(s[1].start[1] == 1.5);
  CHECK(exposed(s[1], "pp") == 1.5);
  CHECK(s[1].finish == 2.5);
  // The receive posted later than the send: its own posting decides.
  receiver.insert(receiver.begin(), compute_op("first"));
  receiver[1].after = {0};
  receiver[2].after = {1};
  const std::vector<PlayedStep> late = play_priced({sender, receiver}, {3, 7}, seconds);
  CHECK(late[0].end[1] == 1.5);  // both posted at 1 s
  receiver[0].label = "longer";
  const auto slow = [](const Op& op) {
    return op.kind == Op::Kind::send ? 0.5 : op.label == "longer" ? 4.0 : 1.0;
  };
  CHECK(play_priced({sender, receiver}, {3, 7}, slow)[0].end[1] == 4.5);
}

TEST_CASE("step timeline: a peer not played, mismatched sizes and a lone receive are refused",
          "[llm][timeline]") {
  const auto one = [](const Op&) { return 1.0; };
  std::vector<Op> recv{comm_op(Op::Kind::recv, "recv")};
  recv[0].peer = 5;
  REQUIRE_THROWS_WITH(play_priced({recv}, {0}, one),
                      Catch::Contains("op 'recv': its peer, rank 5, is not one of the ranks"));
  std::vector<Op> send{comm_op(Op::Kind::send, "send")};
  send[0].peer = 0;
  send[0].size = 8;
  recv[0].peer = 1;
  REQUIRE_THROWS_WITH(play_priced({recv, send}, {0, 1}, one),
                      Catch::Contains("ops 'send' and 'recv' meet with 8 and 0 bytes"));
  REQUIRE_THROWS_WITH(play_priced({recv, {}}, {0, 1}, one),
                      Catch::Contains("rank 0 waits forever at op 0 'recv'"));
}

TEST_CASE("step timeline: ZeRO 3 gathers the next layer's weights while this layer computes",
          "[llm][timeline]") {
  const Transformer model = read_transformer(std::string(DDL_LLM_MODELS) + "/small_gpt.json");
  const ParallelLayout layout = parse_layout("dp=2,mb=2,zero=3");
  const std::vector<Op> ops = step_graph(model, layout, 0);
  // A block computes 1 s, a layer's gather takes 1.5 s, everything else nothing.
  const auto seconds = [](const Op& op) {
    if (op.kind == Op::Kind::collective)
      return op.label.find("weights") != std::string::npos ? 1.5 : 0.0;
    return op.label.find("attention") != std::string::npos ||
                   op.label.find("mlp") != std::string::npos
               ? 1.0
               : 0.0;
  };
  const PlayedStep s = play_priced({ops}, {0}, seconds).at(0);
  auto at = [&](const std::string& label) {
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].label == label) return i;
    FAIL("no op " << label);
    return std::size_t{0};
  };
  // Layer 0's gather, then layer 1's behind it on the stream while layer 0 computes (2 s): the
  // first pass waits 1.5 s for layer 0, nothing for layer 1 (its gather ends at 3 s, as layer 0's
  // compute does) and every layer after.
  CHECK(s.start[at("F0 L0 weights")] == 0.0);
  CHECK(s.start[at("F0 L1 weights")] == 1.5);
  CHECK(s.start[at("F0 L0 attention")] == 1.5);
  CHECK(s.start[at("F0 L1 attention")] == 3.5);
  CHECK(s.end[at("F0 L1 weights")] == 3.0);
  // 4 layers, 2 micro-batches, forward and backward: 4 passes, each exposing its first gather
  // only (a layer computes 2 s, longer than the next layer's 1.5 s gather).
  CHECK(s.exposed.at("dp") == 4 * 1.5);
}
