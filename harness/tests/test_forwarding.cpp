// ForwardingCommunicator forwards every Communicator method to the wrapped one, so decorators
// (tracing, fault injection) override only what they change.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/forwarding_communicator.hpp"
#include "harness/tracing_communicator.hpp"
#include "loopback/fault_injecting_communicator.hpp"

namespace {

// Records the name of every call it gets; answers with fixed, recognisable values.
class Recorder : public ddl::Communicator {
 public:
  std::vector<std::string> calls;
  mutable int shares_asked = 0;  // a const method: counted apart from the calls
  int rank() const override { return 3; }
  int size() const override { return 7; }
  double now() override { return log("now"), 42.0; }
  ddl::Request isend(int, ddl::ConstView, int) override { return log("isend"), ddl::Request{11}; }
  ddl::Request irecv(int, ddl::MutView, int) override { return log("irecv"), ddl::Request{12}; }
  void wait(ddl::Request& r) override { log("wait"), r = {}; }
  void wait_all(std::span<ddl::Request> rs) override {
    log("wait_all");
    for (auto& r : rs) r = {};
  }
  void reduce(ddl::MutView, ddl::ConstView, ddl::DType, ddl::ReduceOp) override { log("reduce"); }
  void copy(ddl::MutView, ddl::ConstView) override { log("copy"); }
  void divide(ddl::MutView, ddl::DType, std::size_t) override { log("divide"); }
  ddl::MutView acquire_scratch(std::size_t bytes) override {
    return log("acquire_scratch"), ddl::MutView{nullptr, bytes};
  }
  void release_scratch(ddl::MutView) override { log("release_scratch"); }
  ddl::Request compute(double) override { return log("compute"), ddl::Request{13}; }
  bool shares_memory_with(int) const override {
    ++shares_asked;
    return true;
  }
  ddl::MemoryHandle handle(ddl::MutView) override {
    return log("handle"), ddl::MemoryHandle{1, 2, 3};
  }
  void get(int, const ddl::MemoryHandle&, std::size_t, ddl::MutView) override { log("get"); }
  void put(int, const ddl::MemoryHandle&, std::size_t, ddl::ConstView) override { log("put"); }
  std::size_t eager_limit() const override { return 4321; }
  void set_phase(const char*, int) override { log("set_phase"); }

 private:
  void log(const char* name) { calls.emplace_back(name); }
};

// Calls every method once, in declaration order.
void call_everything(ddl::Communicator& c) {
  CHECK(c.rank() == 3);
  CHECK(c.size() == 7);
  CHECK(c.now() == 42.0);
  ddl::Request s = c.isend(1, {nullptr, 0}, 0);
  ddl::Request r = c.irecv(1, {nullptr, 0}, 0);
  c.wait(s);
  ddl::Request both[] = {r, c.compute(1.0)};
  c.wait_all(both);
  c.reduce({nullptr, 0}, {nullptr, 0}, ddl::DType::float32, ddl::ReduceOp::sum);
  c.copy({nullptr, 0}, {nullptr, 0});
  c.divide({nullptr, 0}, ddl::DType::float32, 2);
  c.release_scratch(c.acquire_scratch(8));
  CHECK(c.shares_memory_with(1));
  const ddl::MemoryHandle h = c.handle({nullptr, 0});
  CHECK(h.owner == 3);
  c.get(1, h, 0, {nullptr, 0});
  c.put(1, h, 0, {nullptr, 0});
  CHECK(c.eager_limit() == 4321);
  c.set_phase("allgather", 0);
}

const std::vector<std::string> kEveryCall = {"now",
                                             "isend",
                                             "irecv",
                                             "wait",
                                             "compute",
                                             "wait_all",
                                             "reduce",
                                             "copy",
                                             "divide",
                                             "acquire_scratch",
                                             "release_scratch",
                                             "handle",
                                             "get",
                                             "put",
                                             "set_phase"};

}  // namespace

TEST_CASE("ForwardingCommunicator forwards every method", "[harness][forwarding]") {
  Recorder inner;
  ddl::ForwardingCommunicator f(inner);
  call_everything(f);
  CHECK(inner.calls == kEveryCall);
  CHECK(inner.shares_asked == 1);
  CHECK(&f.inner() == &inner);
}

TEST_CASE("the decorators reach the wrapped backend for what they do not change",
          "[harness][forwarding]") {
  Recorder a;
  ddl::FaultInjectingCommunicator faults(a, {});
  call_everything(faults);
  CHECK(a.calls == kEveryCall);  // wait_all reaches the backend's own, not a loop of waits

  Recorder b;
  ddl::harness::TracingCommunicator traced(b);
  call_everything(traced);
  std::vector<std::string> seen;  // the tracer reads the clock around calls: leave those out
  for (const std::string& c : b.calls)
    if (c != "now") seen.push_back(c);
  std::vector<std::string> expected;
  for (const std::string& c : kEveryCall)
    if (c != "now") expected.push_back(c);
  CHECK(seen == expected);
  // One-sided copies are traced as events of their own, naming the peer.
  int one_sided = 0;
  for (const ddl::harness::TraceEvent& e : traced.events())
    if (e.kind == ddl::harness::TraceKind::get || e.kind == ddl::harness::TraceKind::put) {
      CHECK(e.peer == 1);
      ++one_sided;
    }
  CHECK(one_sided == 2);
}
