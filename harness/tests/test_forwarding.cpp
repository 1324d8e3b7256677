// ForwardingCommunicator (and ForwardingOneSided) forward every method to the wrapped one, so
// decorators (tracing, fault injection) override only what they change. A method added to
// Communicator or to a capability must be forwarded: the first case reads the interfaces'
// headers and fails while one declares a virtual that this file's tables do not list, and the
// others fail while a listed method does not reach the wrapped backend through the forwarder
// (a method with a default would otherwise silently run the default instead of the backend's).
#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/forwarding_communicator.hpp"
#include "algorithms/native_library.hpp"
#include "algorithms/step_pacing.hpp"
#include "harness/tracing_communicator.hpp"
#include "loopback/fault_injecting_communicator.hpp"
#include "loopback/loopback_communicator.hpp"

namespace {

// Every virtual of each interface, as call_everything() calls them.
const std::set<std::string> kCore = {"rank",
                                     "size",
                                     "now",
                                     "isend",
                                     "irecv",
                                     "wait",
                                     "wait_all",
                                     "wait_any",
                                     "reduce",
                                     "copy",
                                     "divide",
                                     "acquire_scratch",
                                     "release_scratch",
                                     "compute",
                                     "set_phase",
                                     "one_sided",
                                     "step_pacing",
                                     "switch_reduction",
                                     "native_library",
                                     "split"};
const std::set<std::string> kOneSided = {"shares_memory_with", "eager_limit", "handle", "get",
                                         "put"};
const std::set<std::string> kStepPacing = {"begin_alike_run", "alike_step_done"};
const std::set<std::string> kSwitchReduction = {"switch_domain", "switch_collective"};
const std::set<std::string> kNativeLibrary = {"native_name", "native_supports", "native_allreduce",
                                              "measured_plan"};

// The names of the virtual methods `cls` declares in algorithms/`header` (destructor aside).
std::set<std::string> declared_virtuals(const std::string& header, const std::string& cls) {
  std::ifstream in(std::string(DDL_ALGORITHMS) + "/" + header);
  REQUIRE(in);
  std::string text, line;
  while (std::getline(in, line)) text += line.substr(0, line.find("//")) + "\n";
  const std::size_t open = text.find("class " + cls + " {");
  REQUIRE(open != std::string::npos);
  std::size_t end = text.find('{', open) + 1;
  for (int depth = 1; depth > 0; ++end) depth += text[end] == '{' ? 1 : text[end] == '}' ? -1 : 0;
  const std::string body = text.substr(open, end - open);
  std::set<std::string> names;
  const std::regex virtual_method(R"(virtual\s[^;{}()]*?(~?\w+)\s*\()");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), virtual_method);
       it != std::sregex_iterator(); ++it)
    if ((*it)[1].str()[0] != '~') names.insert((*it)[1].str());
  return names;
}

// Records every call it gets, by name; answers with fixed, recognisable values.
class Recorder : public ddl::Communicator,
                 public ddl::OneSided,
                 public ddl::StepPacing,
                 public ddl::SwitchReduction,
                 public ddl::NativeLibrary {
 public:
  mutable std::multiset<std::string> calls;  // const methods are recorded too
  int rank() const override { return log("rank"), 3; }
  int size() const override { return log("size"), 7; }
  double now() override { return log("now"), 42.0; }
  ddl::Request isend(int, ddl::ConstView, int) override { return log("isend"), ddl::Request{11}; }
  ddl::Request irecv(int, ddl::MutView, int) override { return log("irecv"), ddl::Request{12}; }
  void wait(ddl::Request& r) override { log("wait"), r = {}; }
  void wait_all(std::span<ddl::Request> rs) override {
    log("wait_all");
    for (auto& r : rs) r = {};
  }
  std::size_t wait_any(std::span<ddl::Request> rs) override {
    log("wait_any");
    rs[0] = {};
    return 0;
  }
  void reduce(ddl::MutView, ddl::ConstView, ddl::DType, ddl::ReduceOp) override { log("reduce"); }
  void copy(ddl::MutView, ddl::ConstView) override { log("copy"); }
  void divide(ddl::MutView, ddl::DType, std::size_t) override { log("divide"); }
  ddl::MutView acquire_scratch(std::size_t bytes) override {
    return log("acquire_scratch"), ddl::MutView{nullptr, bytes};
  }
  void release_scratch(ddl::MutView) override { log("release_scratch"); }
  ddl::Request compute(double) override { return log("compute"), ddl::Request{13}; }
  void set_phase(const char*, int) override { log("set_phase"); }
  ddl::OneSided* one_sided() override { return log("one_sided"), this; }
  ddl::StepPacing* step_pacing() override { return log("step_pacing"), this; }
  ddl::SwitchReduction* switch_reduction() override { return log("switch_reduction"), this; }
  ddl::NativeLibrary* native_library() override { return log("native_library"), this; }
  std::unique_ptr<ddl::Communicator> split(int, int) override { return log("split"), nullptr; }

  bool shares_memory_with(int) const override { return log("shares_memory_with"), true; }
  std::size_t eager_limit() const override { return log("eager_limit"), 4321; }
  ddl::MemoryHandle handle(ddl::MutView) override {
    return log("handle"), ddl::MemoryHandle{1, 2, 3};
  }
  void get(int, const ddl::MemoryHandle&, std::size_t, ddl::MutView) override { log("get"); }
  void put(int, const ddl::MemoryHandle&, std::size_t, ddl::ConstView) override { log("put"); }

  void begin_alike_run(std::size_t) override { log("begin_alike_run"); }
  bool alike_step_done(std::size_t) override { return log("alike_step_done"), true; }

  std::vector<int> switch_domain(int) const override {
    return log("switch_domain"), std::vector<int>{3, 5};
  }
  ddl::Request switch_collective(int, ddl::SwitchCollective, ddl::MutView, ddl::DType,
                                 ddl::ReduceOp) override {
    return log("switch_collective"), ddl::Request{14};
  }

  std::string native_name() const override { return log("native_name"), "lib"; }
  bool native_supports(ddl::DType) const override { return log("native_supports"), true; }
  void native_allreduce(ddl::MutView, ddl::DType, ddl::ReduceOp) override {
    log("native_allreduce");
  }
  std::shared_ptr<const ddl::Plan> measured_plan(const ddl::Dims&, std::string*) override {
    return log("measured_plan"), nullptr;
  }

 private:
  void log(const char* name) const { calls.insert(name); }
};

void call_one_sided(ddl::OneSided& o) {
  CHECK(o.shares_memory_with(1));
  CHECK(o.eager_limit() == 4321);
  const ddl::MemoryHandle h = o.handle({nullptr, 0});
  CHECK(h.owner == 3);
  o.get(1, h, 0, {nullptr, 0});
  o.put(1, h, 0, {nullptr, 0});
}

void call_switch_reduction(ddl::SwitchReduction& s) {
  CHECK(s.switch_domain(ddl::kNodeSwitch) == std::vector<int>{3, 5});
  CHECK(s.switch_collective(ddl::kNodeSwitch, ddl::SwitchCollective::allreduce, {nullptr, 0},
                            ddl::DType::float32, ddl::ReduceOp::sum)
            .id == 14);
}

void call_native_library(ddl::NativeLibrary& n) {
  CHECK(n.native_name() == "lib");
  CHECK(n.native_supports(ddl::DType::float32));
  n.native_allreduce({nullptr, 0}, ddl::DType::float32, ddl::ReduceOp::sum);
  CHECK(n.measured_plan(ddl::Dims::flat(7), nullptr) == nullptr);
}

// Calls every method once, and every method of each capability the communicator offers.
void call_everything(ddl::Communicator& c) {
  CHECK(c.rank() == 3);
  CHECK(c.size() == 7);
  CHECK(c.now() == 42.0);
  ddl::Request s = c.isend(1, {nullptr, 0}, 0);
  ddl::Request r = c.irecv(1, {nullptr, 0}, 0);
  c.wait(s);
  ddl::Request received[] = {r};
  CHECK(c.wait_any(received) == 0);
  ddl::Request computing[] = {c.compute(1.0)};
  c.wait_all(computing);
  c.reduce({nullptr, 0}, {nullptr, 0}, ddl::DType::float32, ddl::ReduceOp::sum);
  c.copy({nullptr, 0}, {nullptr, 0});
  c.divide({nullptr, 0}, ddl::DType::float32, 2);
  c.release_scratch(c.acquire_scratch(8));
  c.set_phase("allgather", 0);
  if (ddl::OneSided* o = c.one_sided()) call_one_sided(*o);
  if (ddl::StepPacing* pacing = c.step_pacing()) {
    pacing->begin_alike_run(100);
    CHECK(pacing->alike_step_done(99));
  }
  if (ddl::SwitchReduction* s = c.switch_reduction()) call_switch_reduction(*s);
  if (ddl::NativeLibrary* n = c.native_library()) call_native_library(*n);
  CHECK(c.split(-1, 0) == nullptr);
}

// Each name of `tables` once.
std::multiset<std::string> once(std::initializer_list<std::set<std::string>> tables) {
  std::multiset<std::string> calls;
  for (const auto& table : tables) calls.insert(table.begin(), table.end());
  return calls;
}

std::set<std::string> names(const std::multiset<std::string>& calls) {
  return {calls.begin(), calls.end()};
}

}  // namespace

TEST_CASE("this file's tables list every virtual of Communicator and its capabilities",
          "[harness][forwarding]") {
  // On failure: forward the new method in forwarding_communicator.hpp, then add it to the table,
  // to Recorder and to call_everything.
  CHECK(declared_virtuals("communicator.hpp", "Communicator") == kCore);
  CHECK(declared_virtuals("one_sided.hpp", "OneSided") == kOneSided);
  CHECK(declared_virtuals("step_pacing.hpp", "StepPacing") == kStepPacing);
  CHECK(declared_virtuals("switch_reduction.hpp", "SwitchReduction") == kSwitchReduction);
  CHECK(declared_virtuals("native_library.hpp", "NativeLibrary") == kNativeLibrary);
}

TEST_CASE("ForwardingCommunicator forwards every method and hands out the capabilities",
          "[harness][forwarding]") {
  Recorder inner;
  ddl::ForwardingCommunicator f(inner);
  call_everything(f);
  CHECK(inner.calls == once({kCore, kOneSided, kStepPacing, kSwitchReduction, kNativeLibrary}));
  CHECK(&f.inner() == &inner);
  CHECK(f.one_sided() == static_cast<ddl::OneSided*>(&inner));
  CHECK(f.native_library() == static_cast<ddl::NativeLibrary*>(&inner));
  CHECK(f.step_pacing() == static_cast<ddl::StepPacing*>(&inner));
  CHECK(f.switch_reduction() == static_cast<ddl::SwitchReduction*>(&inner));
}

TEST_CASE("ForwardingSwitchReduction forwards every method", "[harness][forwarding]") {
  Recorder inner;
  ddl::ForwardingSwitchReduction f(inner);
  call_switch_reduction(f);
  CHECK(inner.calls == once({kSwitchReduction}));
  CHECK(&f.inner() == &inner);
}

TEST_CASE("ForwardingOneSided forwards every method", "[harness][forwarding]") {
  Recorder inner;
  ddl::ForwardingOneSided f(inner);
  call_one_sided(f);
  CHECK(inner.calls == once({kOneSided}));
  CHECK(&f.inner() == &inner);
}

TEST_CASE("the decorators reach the wrapped backend for what they do not change",
          "[harness][forwarding]") {
  Recorder a;
  ddl::FaultInjectingCommunicator faults(a, {});
  call_everything(faults);
  CHECK(a.calls == once({kCore, kOneSided, kStepPacing, kSwitchReduction,
                         kNativeLibrary}));  // wait_all reaches the backend's own

  // The tracer reads the clock and the rank around calls, wraps one-sided access in its own,
  // hands out in-switch reduction as it is and offers no pacing (a trace shows every step).
  Recorder b;
  ddl::harness::TracingCommunicator traced(b);
  call_everything(traced);
  CHECK(traced.step_pacing() == nullptr);
  REQUIRE(traced.one_sided() != nullptr);
  CHECK(traced.one_sided() != static_cast<ddl::OneSided*>(&b));
  CHECK(traced.switch_reduction() == static_cast<ddl::SwitchReduction*>(&b));
  std::set<std::string> expected =
      names(once({kCore, kOneSided, kSwitchReduction, kNativeLibrary}));
  expected.erase("step_pacing");
  CHECK(names(b.calls) == expected);
  // One-sided copies are traced as events of their own, naming the peer.
  int one_sided = 0;
  for (const ddl::harness::TraceEvent& e : traced.events())
    if (e.kind == ddl::harness::TraceKind::get || e.kind == ddl::harness::TraceKind::put) {
      CHECK(e.peer == 1);
      ++one_sided;
    }
  CHECK(one_sided == 2);
}

TEST_CASE("a group split off a decorator is decorated too", "[harness][forwarding][groups]") {
  // Strided pairs {0, 2} and {1, 3}: the group's tracer records world ranks, not group ranks.
  std::vector<std::vector<ddl::harness::TraceEvent>> events(4);
  ddl::run_ranks(4, [&](ddl::Communicator& world) {
    ddl::harness::TracingCommunicator traced(world);
    const std::unique_ptr<ddl::Communicator> pair = traced.split(world.rank() % 2, world.rank());
    REQUIRE(pair);
    int mine = world.rank(), theirs = -1;
    ddl::Request rs[] = {pair->isend(1 - pair->rank(), {&mine, sizeof mine}, 9),
                         pair->irecv(1 - pair->rank(), {&theirs, sizeof theirs}, 9)};
    pair->wait_all(rs);
    CHECK(theirs == (world.rank() + 2) % 4);
    events[static_cast<std::size_t>(world.rank())] =
        dynamic_cast<ddl::harness::TracingCommunicator&>(*pair).take_events();
  });
  for (int r = 0; r < 4; ++r) {
    const auto& mine = events[static_cast<std::size_t>(r)];
    REQUIRE(mine.size() == 2);
    for (const ddl::harness::TraceEvent& e : mine) {
      CHECK(e.rank == r);
      CHECK(e.peer == (r + 2) % 4);
      CHECK(e.tag == 9);
    }
  }
  // The fault injector's group delays its sends as the world's do.
  ddl::run_ranks(2, [](ddl::Communicator& world) {
    ddl::FaultInjectingCommunicator::Faults faults;
    faults.send_delay = std::chrono::milliseconds(20);
    ddl::FaultInjectingCommunicator faulty(world, faults);
    const std::unique_ptr<ddl::Communicator> group = faulty.split(0, -world.rank());
    REQUIRE(group);
    CHECK(group->rank() == 1 - world.rank());
    int x = 0;
    const double start = group->now();
    ddl::Request r = group->rank() == 0 ? group->isend(1, {&x, sizeof x}, 0)
                                        : group->irecv(0, {&x, sizeof x}, 0);
    group->wait(r);
    if (group->rank() == 0) CHECK(group->now() - start >= 0.02);
  });
}
