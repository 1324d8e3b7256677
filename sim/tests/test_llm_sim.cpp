// An LLM step on the simulator (workloads/llm/step_player.hpp with SimGrid actors as streams):
// 1F1B's makespan and bubble against the hand-computed timeline on star_8.xml, where compute is
// set per op and the messages (64 KB activations, the data-parallel gradients) take
// microseconds: with p stages, m micro-batches, a forward of F and a backward of B seconds on
// every stage, the step takes (m + p - 1)(F + B) and each stage idles (p - 1)(F + B), the
// bubble's fraction (p - 1)/(m + p - 1) of the step.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <simgrid/s4u.hpp>
#include <sstream>
#include <string>

#include "child_process.hpp"
#include "sim/isolated.hpp"
#include "sim/llm_run.hpp"
#include "sim/platform.hpp"
#include "workloads/llm/chakra.hpp"
namespace {

constexpr double kForward = 1.0, kBackward = 2.0;  // seconds per stage and micro-batch

// "step_seconds stage0_pp_idle last_stage_pp_idle" of small_gpt (4 layers) on pp 4, dp 2, every
// rank played (priced: false) or on prices (true).
std::string simulate_one_f_one_b(int micro_batches, bool priced) {
  auto& engine = ddl::sim::start_engine("test_llm_sim");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::fixture("star_8.xml"));
  const ddl::llm::Transformer model =
      ddl::llm::read_transformer(std::string(DDL_LLM_MODELS) + "/small_gpt.json");
  const ddl::llm::ParallelLayout layout =
      ddl::llm::parse_layout("pp=4,dp=2,mb=" + std::to_string(micro_batches));
  // One layer a stage: its two blocks share the pass's time; logits and the optimizer take none.
  const auto seconds = [](const ddl::llm::Op& op) {
    if (op.label.find("logits") != std::string::npos || op.label == "optimizer") return 0.0;
    return (op.label[0] == 'F' ? kForward : kBackward) / 2;
  };
  ddl::llm::PlayOptions play;
  play.payload = false;
  const std::vector<ddl::llm::PlayedStep> steps =
      priced ? ddl::sim::predict_llm_step(platform, model, layout, seconds, play)
             : ddl::sim::simulate_llm_step(platform, model, layout, seconds, {});
  double step = 0;
  for (const ddl::llm::PlayedStep& s : steps) step = std::max(step, s.finish - s.begin);
  // Priced steps are by stage; rank 6 is the last stage's first rank.
  auto idle = [&](int rank, int stage) {
    const auto& e = steps[static_cast<std::size_t>(priced ? stage : rank)].exposed;
    return e.count("pp") ? e.at("pp") : 0.0;
  };
  char text[96];
  std::snprintf(text, sizeof text, "%.17g %.17g %.17g", step, idle(0, 0), idle(6, 3));
  return text;
}

}  // namespace

TEST_CASE("sim llm: 1F1B takes (m + p - 1)(F + B), each stage idles (p - 1)(F + B)", "[sim][llm]") {
  for (const auto& [m, priced] :
       std::vector<std::pair<int, bool>>{{4, false}, {8, false}, {4, true}, {8, true}}) {
    const std::string result = ddl::sim::run_isolated(
        {"1F1B on star_8", [m, priced] { return simulate_one_f_one_b(m, priced); }}, 120);
    std::istringstream in(result);
    double step = 0, first = 0, last = 0;
    in >> step >> first >> last;
    REQUIRE(in);
    INFO("m=" << m << (priced ? " on prices" : " every rank") << ": step " << step
              << " s, idle first stage " << first << " s, last " << last);
    const int p = 4;
    CHECK(step == Approx((m + p - 1) * (kForward + kBackward)).epsilon(1e-3));
    CHECK(first == Approx((p - 1) * (kForward + kBackward)).epsilon(1e-3));
    // The last stage waits before each of its forwards for the activations; it then ends
    // (p - 1)(F + B) early, so its idle before computing is the bubble's other share.
    CHECK(first / step == Approx(static_cast<double>(p - 1) / (m + p - 1)).epsilon(1e-3));
    CHECK(last > 0);
  }
}

TEST_CASE("ddlsim --llm: a step's time, tokens/s and MFU that agree, per stage its breakdown",
          "[sim][llm][cli]") {
  const ddl::test::ChildResult r = ddl::test::run_child(
      ddl::test::ddlsim() + " --platform " + DDL_PLATFORMS +
      "/dgx_h100_4.xml --llm llama2_7b --layout tp=8,pp=2,dp=2,mb=8,zero=1,sp");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> lines = ddl::test::split(r.out, '\n');
  std::vector<std::vector<std::string>> rows;
  for (const std::string& l : lines)
    if (!l.empty() && l[0] != '#') {
      std::vector<std::string> cells;
      for (const std::string& c : ddl::test::split(l, ' '))
        if (!c.empty()) cells.push_back(c);
      rows.push_back(cells);
    }
  REQUIRE(rows.size() == 3);  // the step, then stages 0 and 1
  REQUIRE(rows[0].size() == 3);
  const double step = std::stod(rows[0][0]), tokens = std::stod(rows[0][1]),
               mfu = std::stod(rows[0][2]);
  // 16 sequences of 4096 tokens a step; Llama-2 7B's FLOPs over 32 GPUs at 989.4 TFLOP/s.
  CHECK(tokens == Approx(16 * 4096 / step).epsilon(1e-3));
  const double h = 4096, s = 4096,
               layer =
                   2 * s * h * (h + 2 * h) + 4 * s * s * h + 2 * s * h * h + 3 * 2 * s * h * 11008;
  const double flops = 3 * (32 * layer + 2 * s * h * 32000) * 16;
  CHECK(mfu == Approx(100 * flops / (step * 32 * 989.4e12)).epsilon(1e-3));
  for (std::size_t k = 1; k < 3; ++k) {
    REQUIRE(rows[k].size() == 6);
    CHECK(std::stoi(rows[k][0]) == static_cast<int>(k - 1));
    double busy = 0;
    for (std::size_t c = 1; c < 6; ++c) busy += std::stod(rows[k][c]);
    CHECK(busy <= step * 1.001);       // compute and exposed time fit in the step
    CHECK(std::stod(rows[k][3]) > 0);  // sequence parallelism's collectives are exposed
  }
  CHECK(r.out.find("# memory per GPU, stage 0: weights ") != std::string::npos);
}

namespace {

// small_gpt's step on the 8 GPUs of one DGX H100: "every rank played, step graph" and "the same
// graphs written as a Chakra trace, read back and played", as "max end" pairs.
std::string graphs_against_chakra(bool from_chakra) {
  auto& engine = ddl::sim::start_engine("test_llm_sim");
  const ddl::sim::Platform platform =
      ddl::sim::load_platform(engine, ddl::test::platform("dgx_h100_4.xml"));
  const ddl::llm::Transformer model =
      ddl::llm::read_transformer(std::string(DDL_LLM_MODELS) + "/small_gpt.json");
  const ddl::llm::ParallelLayout layout = ddl::llm::parse_layout("tp=4,pp=2,dp=4,mb=3,zero=1,sp");
  const auto seconds = [](const ddl::llm::Op& op) { return op.flops / 1e14 + op.bytes / 1e12; };
  ddl::llm::PlayOptions play;
  play.payload = false;
  std::vector<ddl::llm::PlayedStep> steps;
  if (from_chakra) {
    std::vector<std::vector<ddl::llm::Op>> graphs;
    for (int r = 0; r < layout.gpus(); ++r) {
      std::stringstream file;
      ddl::llm::write_chakra(ddl::llm::step_graph(model, layout, r), r, layout.to_string(), file);
      graphs.push_back(ddl::llm::read_chakra(file, "rank " + std::to_string(r)).ops);
    }
    steps = ddl::sim::simulate_graphs(platform, graphs, layout, seconds, play);
  } else {
    steps = ddl::sim::simulate_llm_step(platform, model, layout, seconds, play);
  }
  std::string text;
  for (const ddl::llm::PlayedStep& s : steps) {
    char number[32];
    std::snprintf(number, sizeof number, "%.17g ", s.finish);
    text += number;
  }
  return text;
}

}  // namespace

TEST_CASE("sim llm: a Chakra trace of a step plays as the step it was written from",
          "[sim][llm][chakra]") {
  const std::string direct = ddl::sim::run_isolated(
      {"step graphs on dgx_h100_4", [] { return graphs_against_chakra(false); }}, 120);
  const std::string traced = ddl::sim::run_isolated(
      {"Chakra trace on dgx_h100_4", [] { return graphs_against_chakra(true); }}, 120);
  CHECK(direct == traced);
  CHECK(ddl::test::split(direct, ' ').size() >= 32);
}

TEST_CASE("sim llm: graphs that name a group without a layout, or a peer out of range, are refused",
          "[sim][llm][chakra]") {
  const std::string result = ddl::sim::run_isolated(
      {"refusals",
       [] {
         auto& engine = ddl::sim::start_engine("test_llm_sim");
         const ddl::sim::Platform platform =
             ddl::sim::load_platform(engine, ddl::test::fixture("star_8.xml"));
         std::vector<std::vector<ddl::llm::Op>> graphs(8);
         ddl::llm::Op op;
         op.kind = ddl::llm::Op::Kind::collective;
         op.label = "grads";
         op.group = ddl::llm::GroupKind::dp;
         graphs[3].push_back(op);
         std::string said;
         const auto seconds = [](const ddl::llm::Op&) { return 0.0; };
         try {
           ddl::sim::simulate_graphs(platform, graphs, std::nullopt, seconds, {});
         } catch (const ddl::InvalidArgument& e) {
           said += std::string(e.what()) + "\n";
         }
         graphs[3][0].kind = ddl::llm::Op::Kind::send;
         graphs[3][0].peer = 8;
         try {
           ddl::sim::simulate_graphs(platform, graphs, std::nullopt, seconds, {});
         } catch (const ddl::InvalidArgument& e) {
           said += e.what();
         }
         return said;
       }},
      120);
  CHECK(result ==
        "rank 3 op 'grads': group dp needs the layout that defines it, and the graphs carry none\n"
        "rank 3 op 'grads': peer 8 is not another of the 8 ranks");
}

TEST_CASE(
    "ddlsim --llm --trace: a Perfetto trace of each stage's first rank, its streams as threads",
    "[sim][llm][cli]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ddlsim_llm_trace_" + std::to_string(::getpid()) + ".json"))
                               .string();
  const ddl::test::ChildResult r = ddl::test::run_child(
      ddl::test::ddlsim() + " --platform " + DDL_PLATFORMS +
      "/dgx_h100_4.xml --llm small_gpt --layout tp=4,pp=2,dp=4,mb=3,zero=1,sp --trace " + path);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(path);
  const nlohmann::json trace = nlohmann::json::parse(in);
  std::filesystem::remove(path);
  std::map<int, std::set<std::string>> threads;  // by pid
  std::size_t complete = 0;
  for (const nlohmann::json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      threads[e.at("pid").get<int>()].insert(e.at("args").at("name").get<std::string>());
    if (e.at("ph") == "X") {
      ++complete;
      CHECK(e.at("dur").get<double>() >= 0);
    }
  }
  // Stage 0's first rank is rank 0, stage 1's rank 16; each computes, gathers and scatters in its
  // tp group, reduces in its dp group, and passes activations or gradients on.
  REQUIRE(threads.size() == 2);
  const std::set<std::string> streams{"compute", "tp collectives", "dp collectives", "pp sends",
                                      "pp receives"};
  CHECK(threads.at(0) == streams);
  CHECK(threads.at(16) == streams);
  CHECK(complete > 100);
  ddl::test::check_rejected_command(
      ddl::test::ddlsim() + " --platform " + DDL_PLATFORMS +
          "/dgx_h100_4.xml --llm small_gpt --layout tp=4,pp=2,dp=4,mb=3 --trace t.csv",
      "--trace 't.csv': --llm runs write a Chrome/Perfetto trace: give a .json path");
}
