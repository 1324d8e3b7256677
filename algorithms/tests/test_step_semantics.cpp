// The rules of a step (step_semantics.hpp) and the pricing of one step's messages
// (step_pricing.hpp), against values worked out by hand: the executor, the cost model, the
// simulator and test_schedule_cost_exact.cpp all rely on them. Figures are powers of two where
// they can be, so every expected time is exact in binary.
#include <catch2/catch.hpp>
#include <vector>

#include "algorithms/step_pricing.hpp"
#include "algorithms/step_semantics.hpp"

using namespace ddl;

TEST_CASE("a step reduces its receives, after its sends where it reduces what it sends",
          "[step_semantics]") {
  // rd's exchange: receive the peer's whole buffer and reduce it into the bytes it sends.
  const Step rd{{{1, 0, 64}}, {{1, 0, 64}}, true};
  // A ring's reduce-scatter step: send one block, reduce another.
  const Step ring{{{1, 0, 32}}, {{3, 32, 32}}, true};
  Step plain = ring, touching = ring, empty = rd;
  plain.reduce = false;
  touching.recvs[0].offset = 31;  // one byte of the block it sends
  empty.sends[0].bytes = 0;       // sends no message: reads nothing
  CHECK(reduces_what_it_sends(rd));
  CHECK_FALSE(reduces_what_it_sends(ring));
  CHECK(reduces_what_it_sends(touching));
  CHECK_FALSE(reduces_what_it_sends(plain));
  CHECK_FALSE(reduces_what_it_sends(empty));

  Step two = ring;
  two.recvs.push_back({2, 100, 28});
  CHECK(reduced_bytes(two) == 60);
  CHECK(reduced_bytes(rd) == 64);
  CHECK(reduced_bytes(plain) == 0);  // a plain receive writes the buffer, reduces nothing
}

TEST_CASE("a rank leaves a step after its last send and its last receive plus reductions",
          "[step_semantics]") {
  // Reductions overlap the sends: the later of the sends and receive + reduce.
  CHECK(leave_step(5, 3, 1, false) == 5);
  CHECK(leave_step(5, 3, 3, false) == 6);
  // A step that reduces what it sends reduces after both.
  CHECK(leave_step(5, 3, 1, true) == 6);
  CHECK(leave_step(2, 3, 1, true) == 4);
}

TEST_CASE("a peer read is slowed by the share of its bytes that land in sent bytes",
          "[step_semantics]") {
  ByteRanges sent;
  sent.add(0, 100);
  CHECK(sent_share(sent, 50, 100) == 0.5);
  CHECK(sent_share(sent, 0, 64) == 1);
  CHECK(sent_share(sent, 100, 8) == 0);
  CHECK(peer_read_ratio(3, 0.5) == 2);
  CHECK(peer_read_ratio(3, 0) == 1);
  CHECK(peer_read_ratio(1.5, 1) == 1.5);
}

TEST_CASE("messages on one link class share its link: bytes add, the largest alpha once",
          "[step_pricing]") {
  // 4x2: ranks 0 (0,0), 1 (1,0), 4 (0,1).
  const std::vector<std::vector<int>> coords = {{0, 0}, {1, 0}, {2, 0}, {3, 0},
                                                {0, 1}, {1, 1}, {2, 1}, {3, 1}};
  CHECK(link_class(coords, 0, 1) == 0);
  CHECK(link_class(coords, 0, 4) == 1);
  CHECK(link_class(coords, 1, 4) == 1);  // the outermost dimension that differs
  CHECK(link_class(coords, 2, 2) == 0);

  CostParams c;
  c.per_dim = {{0.5, 0.25}, {2, 1}};
  CHECK(message_cost(c, 1, 8).alpha == 2);
  c.message = [](int dim, double bytes) { return LinkCost{dim + bytes / 64, 0.125}; };
  CHECK(message_cost(c, 1, 32).alpha == 1.5);
  CHECK(message_cost(c, 1, 32).beta == 0.125);

  LinkCost l{0.5, 0.25};
  ClassLoad out;
  out.add_send(l, 4);
  out.add_send(l, 8);
  CHECK(out.time() == 3.5);  // 0.5 + (4 + 8) x 0.25
  ClassLoad in;
  in.add_recv(l, 4, 3);     // a peer read three times its own 0.5 + 1
  CHECK(in.time() == 4.5);  // above the link's 0.5 + 1
  in.add_recv(l, 16, 1);    // 0.5 + (4 + 16) x 0.25 = 5.5 now exceeds the lone 4.5
  CHECK(in.time() == 5.5);
  l.rendezvous_bytes = 8;  // from 8 bytes a message pays α twice
  ClassLoad big;
  big.add_send(l, 8);
  CHECK(big.time() == 3);  // 2 x 0.5 + 8 x 0.25
}

TEST_CASE("a shared link splits its bandwidth among the flows present", "[step_pricing]") {
  ProcessorSharing link;
  link.serve({1}, {10}, 4);
  CHECK(link.end == std::vector<double>{3.5});
  // Together: 5 B/s each until the first ends at 2, then the other alone at 10 B/s.
  link.serve({0, 0}, {10, 20}, 10);
  CHECK(link.end == std::vector<double>{2, 3});
  // The first alone for 0.5 s (5 bytes), then both at 5 B/s: it ends at 1.5, the other at 2.
  link.serve({0, 0.5}, {10, 10}, 10);
  CHECK(link.end == std::vector<double>{1.5, 2});
  // Apart: each alone.
  link.serve({5, 0}, {10, 10}, 10);
  CHECK(link.end == std::vector<double>{6, 1});
}

namespace {

// Ranks 0 and 1 send to rank 2 over one shared link (10 B/s, 0.5 s); rank 3 reaches rank 2 over
// a link of its own that concurrent flows would not share (5 B/s, 0.25 s).
class Funnel : public Topology {
 public:
  Funnel() : shared_{{0, 10, 0.5, true}}, own_{{1, 5, 0.25, false}} {}
  int ranks() const override { return 4; }
  int link_count() const override { return 2; }
  const std::vector<RouteLink>& route(int src, int) const override {
    return src == 3 ? own_ : shared_;
  }

 private:
  std::vector<RouteLink> shared_, own_;
};

void add_flow(StepFlows& s, const Topology& topo, int src, double bytes, double start,
              double peer_read) {
  s.src.push_back(src);
  s.dst.push_back(2);
  s.bytes.push_back(bytes);
  s.peer_read.push_back(peer_read);
  s.route.push_back(&topo.route(src, 2));
  s.alone.push_back(topo.alone(src, 2, bytes, 0));
  s.start.push_back(start);
}

}  // namespace

TEST_CASE("a step's flows share their links, a link serving a step after the one before",
          "[step_pricing]") {
  const Funnel topo;
  SharedLinks links(topo);
  StepFlows s;
  // Both flows on the shared link from 0.5 (its latency): 20 bytes at 10 B/s end at 2.5. Alone
  // each would take 1.5, so rank 1's peer read (twice its own time) takes 3. Rank 3's own link
  // serves it alone: 0.25 + 10 / 5.
  add_flow(s, topo, 0, 10, 0, 1);
  add_flow(s, topo, 1, 10, 0, 2);
  add_flow(s, topo, 3, 10, 0, 1);
  links.price_step(s);
  CHECK(s.time == std::vector<double>{2.5, 3, 2.25});
  // The next step's flow reaches the link at 1.5, but the link serves it only from 2.5, when it
  // has served the step before: it ends at 3.5, 2.5 after its start.
  s.clear();
  add_flow(s, topo, 0, 10, 1, 1);
  links.price_step(s);
  CHECK(s.time == std::vector<double>{2.5});
}
