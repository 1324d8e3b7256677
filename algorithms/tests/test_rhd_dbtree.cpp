// Halving-doubling steps, rhd's fix-up schedule, rd's exchanges, dbtree's trees and pipelined
// schedules, and the three algorithms on the loopback communicator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "algorithms/allreduce_dbtree.hpp"
#include "algorithms/allreduce_rd.hpp"
#include "algorithms/allreduce_rhd.hpp"
#include "algorithms/forwarding_communicator.hpp"
#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/tests/run_collective.hpp"

using namespace ddl;

namespace {

constexpr std::size_t kElem = 4;

// Contributions per element, as a bit set of world ranks (p <= 16 here).
using Buffers = std::vector<std::vector<unsigned>>;  // [rank][element]

// Runs every rank's schedules in lockstep on symbolic buffers, as the executor does. Checks:
// each transfer lies inside the buffer and is element-aligned; at every step the sends of each
// (sender, receiver, schedule) equal, in order, the receives posted for them; sends read the
// buffer as it was before the step; no rank sends from bytes a plain receive writes in the same
// step (a reduction into sent bytes waits for the sends: schedule.hpp); a reduction never
// counts a rank twice; two plain receives never write the same bytes in one step.
void play(const std::vector<std::vector<Schedule>>& ranks, std::size_t count, Buffers& buf) {
  const int p = static_cast<int>(ranks.size());
  const std::size_t bytes = count * kElem;
  std::size_t steps = 0;
  for (const auto& schedules : ranks)
    for (const Schedule& s : schedules) steps = std::max(steps, s.size());
  for (std::size_t t = 0; t < steps; ++t) {
    using Key = std::tuple<int, int, std::size_t>;  // sender, receiver, schedule
    std::map<Key, std::vector<Transfer>> sent, posted;
    for (int r = 0; r < p; ++r)
      for (std::size_t j = 0; j < ranks[static_cast<std::size_t>(r)].size(); ++j) {
        const Schedule& s = ranks[static_cast<std::size_t>(r)][j];
        if (t >= s.size()) continue;
        for (const Transfer& x : s[t].sends) {
          REQUIRE(x.offset % kElem == 0);
          REQUIRE(x.bytes % kElem == 0);
          REQUIRE(x.offset + x.bytes <= bytes);
          if (x.bytes > 0) sent[{r, x.peer, j}].push_back({x.peer, x.offset, x.bytes});
        }
        for (const Transfer& x : s[t].recvs) {
          REQUIRE(x.offset + x.bytes <= bytes);
          if (x.bytes > 0) posted[{x.peer, r, j}].push_back({r, x.offset, x.bytes});
        }
      }
    INFO("step " << t);
    REQUIRE(sent == posted);
    const Buffers before = buf;
    for (int r = 0; r < p; ++r) {
      const auto me = static_cast<std::size_t>(r);
      std::vector<int> written(count, 0);  // 1: plain receive, 2: reduction
      std::vector<bool> read(count, false);
      for (const Schedule& s : ranks[me]) {
        if (t >= s.size()) continue;
        for (const Transfer& x : s[t].sends)
          for (std::size_t e = x.offset / kElem; e < (x.offset + x.bytes) / kElem; ++e)
            read[e] = true;
        for (const Transfer& x : s[t].recvs)
          for (std::size_t e = x.offset / kElem; e < (x.offset + x.bytes) / kElem; ++e) {
            const unsigned in = before[static_cast<std::size_t>(x.peer)][e];
            if (s[t].reduce) {
              REQUIRE(written[e] != 1);
              REQUIRE((buf[me][e] & in) == 0u);
              buf[me][e] |= in;
              written[e] = 2;
            } else {
              REQUIRE(written[e] == 0);
              buf[me][e] = in;
              written[e] = 1;
            }
          }
      }
      for (std::size_t e = 0; e < count; ++e) REQUIRE(!(read[e] && written[e] == 1));
    }
  }
}

// Plays `ranks` from every rank holding only its own contribution; returns the final buffers.
Buffers play_allreduce(const std::vector<std::vector<Schedule>>& ranks, std::size_t count) {
  Buffers buf(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) buf[r].assign(count, 1u << r);
  play(ranks, count, buf);
  return buf;
}

void require_exact(const char* name, int p, std::size_t count, DType t, ReduceOp op,
                   std::size_t segment_bytes, HdOrder order = HdOrder::near) {
  Options opts;
  opts.segment_bytes = segment_bytes;
  opts.hd_order = order;
  INFO(name << " ranks=" << p << " count=" << count << " " << to_string(t) << " " << to_string(op)
            << " segment=" << segment_bytes
            << " order=" << (order == HdOrder::near ? "near" : "far"));
  const test::Outcome out = test::run_collective(find_algorithm(name), p, count, t, op, opts);
  INFO(out.first);
  REQUIRE(out.wrong == 0);
}

Group group_of(int g, int me) {
  Group group;
  for (int r = 0; r < g; ++r) group.ranks.push_back(100 + 3 * r);  // world ranks != indices
  group.me = me;
  return group;
}

}  // namespace

TEST_CASE("hd distances: near-first 1, 2, ..., far-first the reverse", "[schedule][rhd]") {
  CHECK(hd_distances(8, HdOrder::near) == std::vector<int>{1, 2, 4});
  CHECK(hd_distances(8, HdOrder::far) == std::vector<int>{4, 2, 1});
  CHECK(hd_distances(1, HdOrder::near).empty());
  // Near-first ends member i on block bit-reverse(i): 1 = 001 -> 100, 6 = 110 -> 011.
  CHECK(hd_owned_block(1, 8, HdOrder::near) == 4);
  CHECK(hd_owned_block(6, 8, HdOrder::near) == 3);
  CHECK(hd_owned_block(6, 8, HdOrder::far) == 6);
  CHECK(hd_owned_block(0, 1, HdOrder::near) == 0);
}

TEST_CASE("hd reduce-scatter halves toward its block, allgather doubles back", "[schedule][rhd]") {
  for (HdOrder order : {HdOrder::near, HdOrder::far})
    for (int g : {1, 2, 4, 8, 16})
      for (std::size_t count : {0u, 1u, 3u, 7u, 16u, 17u, 100u}) {
        const Block range{8 * kElem, count * kElem};  // a sub-range, as ddl's pieces are
        const auto blocks = partition(range, static_cast<std::size_t>(g), kElem);
        std::vector<int> owners;
        for (int me = 0; me < g; ++me) {
          INFO("order=" << (order == HdOrder::near ? "near" : "far") << " g=" << g
                        << " count=" << count << " me=" << me);
          const Group group = group_of(g, me);
          const Schedule rs = hd_reduce_scatter(group, range, kElem, 1, order);
          const Schedule ag = hd_allgather(group, range, kElem, 1, order);
          const std::vector<int> distances = hd_distances(g, order);
          REQUIRE(rs.size() == distances.size());
          REQUIRE(ag.size() == distances.size());
          Block held = range;
          for (std::size_t k = 0; k < rs.size(); ++k) {
            const Step& s = rs[k];
            const int m = distances[k];
            REQUIRE(s.sends.size() == 1);
            REQUIRE(s.recvs.size() == 1);
            CHECK(s.reduce);
            CHECK(s.dimension == 1);
            CHECK(s.sends[0].peer == group.ranks[static_cast<std::size_t>(me ^ m)]);
            CHECK(s.recvs[0].peer == s.sends[0].peer);
            // The halves are adjacent, do not overlap and cover what was held; the kept
            // (received) half is the upper one when bit m is set.
            const Transfer& lo = (me & m) ? s.sends[0] : s.recvs[0];
            const Transfer& hi = (me & m) ? s.recvs[0] : s.sends[0];
            CHECK(lo.offset == held.offset);
            CHECK(lo.offset + lo.bytes == hi.offset);
            CHECK(hi.offset + hi.bytes == held.offset + held.bytes);
            held = {s.recvs[0].offset, s.recvs[0].bytes};
          }
          const int owned = hd_owned_block(me, g, order);
          owners.push_back(owned);
          CHECK(held == blocks[static_cast<std::size_t>(owned)]);
          for (std::size_t k = 0; k < ag.size(); ++k) {
            const Step& s = ag[k];
            const int m = distances[distances.size() - 1 - k];
            CHECK_FALSE(s.reduce);
            CHECK(s.sends[0].peer == group.ranks[static_cast<std::size_t>(me ^ m)]);
            CHECK(s.sends[0] == Transfer{s.sends[0].peer, held.offset, held.bytes});
            const Transfer& r = s.recvs[0];
            // The peer's run lies on its side of m.
            if (me & m)
              CHECK(r.offset + r.bytes == held.offset);
            else
              CHECK(held.offset + held.bytes == r.offset);
            held = {std::min(held.offset, r.offset), held.bytes + r.bytes};
          }
          CHECK(held == range);
        }
        // Every block has exactly one owner.
        std::sort(owners.begin(), owners.end());
        for (int i = 0; i < g; ++i) CHECK(owners[static_cast<std::size_t>(i)] == i);
      }
}

TEST_CASE("hd steps reject groups that are not powers of two", "[schedule][rhd]") {
  for (int n : {1, 2, 4, 8, 1024, 1 << 30}) CHECK(is_power_of_two(n));
  for (int n : {0, -2, 3, 6, 12, 1000}) CHECK_FALSE(is_power_of_two(n));
  CHECK_THROWS_AS(hd_reduce_scatter(group_of(3, 0), {0, 12}, kElem, 0, HdOrder::near),
                  InvalidArgument);
  CHECK_THROWS_AS(hd_allgather(group_of(6, 2), {0, 24}, kElem, 0, HdOrder::far), InvalidArgument);
}

// For powers of two this is halving-doubling alone, so it also checks hd's exchanges add up.
TEST_CASE("rhd schedule: fold, halving-doubling among survivors, unfold", "[schedule][rhd]") {
  for (HdOrder order : {HdOrder::near, HdOrder::far})
    for (int p = 1; p <= 16; ++p) {
      const int survivors = rhd_survivors(p);
      CHECK(is_power_of_two(survivors));
      CHECK(survivors <= p);
      CHECK(2 * survivors > p);
      for (std::size_t count : {std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{37}}) {
        INFO("p=" << p << " count=" << count);
        std::vector<std::vector<Schedule>> ranks;
        for (int r = 0; r < p; ++r) ranks.push_back({rhd_schedule(p, r, count, kElem, order)});
        for (const auto& s : ranks) CHECK(s[0].size() == ranks[0][0].size());
        const int folded = p - survivors;
        for (int r = 0; r < 2 * folded; r += 2) {
          // A folded rank sends everything once and receives everything once, at the ends.
          const Schedule& s = ranks[static_cast<std::size_t>(r)][0];
          CHECK(s.front().sends == std::vector<Transfer>{{r + 1, 0, count * kElem}});
          CHECK(s.back().recvs == std::vector<Transfer>{{r + 1, 0, count * kElem}});
          for (std::size_t t = 1; t + 1 < s.size(); ++t) CHECK(s[t].sends.empty());
        }
        if (survivors > 1) {
          // The first halving step pairs survivors at distance 1 (near) or p'/2 (far): for a
          // power of two, rank 0 with rank 1 or with rank p/2.
          const Step& first = ranks[static_cast<std::size_t>(p - 1)][0][folded > 0 ? 1 : 0];
          const int new_rank = p - 1 - folded;
          const int partner = new_rank ^ (order == HdOrder::near ? 1 : survivors / 2);
          CHECK(first.sends[0].peer == (partner < folded ? 2 * partner + 1 : partner + folded));
        }
        const Buffers out = play_allreduce(ranks, count);
        for (const auto& b : out)
          for (unsigned v : b) CHECK(v == (1u << p) - 1);
      }
    }
}

TEST_CASE("rd schedule: fold, log2 p' whole-buffer exchanges, unfold", "[schedule][rd]") {
  for (int p = 1; p <= 16; ++p) {
    const int survivors = rhd_survivors(p), folded = p - survivors;
    int exchanges = 0;
    for (int m = 1; m < survivors; m *= 2) ++exchanges;
    for (std::size_t count : {std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{37}}) {
      INFO("p=" << p << " count=" << count);
      const std::size_t all = count * kElem;
      std::vector<std::vector<Schedule>> ranks;
      for (int r = 0; r < p; ++r) ranks.push_back({rd_schedule(p, r, count, kElem)});
      for (int r = 0; r < p; ++r) {
        const Schedule& s = ranks[static_cast<std::size_t>(r)][0];
        REQUIRE(s.size() == static_cast<std::size_t>(exchanges + (folded > 0 ? 2 : 0)));
        const bool survives = r >= 2 * folded || r % 2 == 1;
        const int me = r >= 2 * folded ? r - folded : r / 2;
        const std::size_t first = folded > 0 ? 1 : 0;
        for (int k = 0; k < exchanges; ++k) {
          const Step& x = s[first + static_cast<std::size_t>(k)];
          if (!survives) {
            CHECK(x.sends.empty());
            CHECK(x.recvs.empty());
            continue;
          }
          // Distance 1, 2, 4, ... among the survivors' new ranks, the whole buffer both ways.
          const int partner = me ^ (1 << k);
          const int peer = partner < folded ? 2 * partner + 1 : partner + folded;
          CHECK(x.sends == std::vector<Transfer>{{peer, 0, all}});
          CHECK(x.recvs == std::vector<Transfer>{{peer, 0, all}});
          CHECK(x.reduce);
        }
      }
      const Buffers out = play_allreduce(ranks, count);
      for (const auto& b : out)
        for (unsigned v : b) CHECK(v == (1u << p) - 1);
    }
  }
}

namespace {

// Counts reductions into bytes that a send of the same rank still in flight reads: the
// executor must never do that (on rendezvous transports the peer reads the send buffer late).
class SendReadChecker : public ForwardingCommunicator {
 public:
  using ForwardingCommunicator::ForwardingCommunicator;
  Request isend(int peer, ConstView data, int tag) override {
    const Request r = ForwardingCommunicator::isend(peer, data, tag);
    in_flight_[r.id] = data;
    return r;
  }
  void wait(Request& r) override {
    const std::uint64_t id = r.id;
    ForwardingCommunicator::wait(r);
    in_flight_.erase(id);
  }
  void wait_all(std::span<Request> rs) override {
    for (Request& r : rs) wait(r);
  }
  std::size_t wait_any(std::span<Request> rs) override {
    std::vector<std::uint64_t> ids;
    for (const Request& r : rs) ids.push_back(r.id);
    const std::size_t done = ForwardingCommunicator::wait_any(rs);
    in_flight_.erase(ids[done]);
    return done;
  }
  void reduce(MutView inout, ConstView in, DType type, ReduceOp op) override {
    const auto* lo = static_cast<const std::byte*>(inout.data);
    for (const auto& [id, sent] : in_flight_) {
      const auto* s = static_cast<const std::byte*>(sent.data);
      if (inout.bytes > 0 && sent.bytes > 0 && lo < s + sent.bytes && s < lo + inout.bytes)
        ++violations;
    }
    ForwardingCommunicator::reduce(inout, in, type, op);
  }
  std::size_t violations = 0;

 private:
  std::map<std::uint64_t, ConstView> in_flight_;
};

}  // namespace

TEST_CASE("no allreduce reduces into bytes its sends in flight still read", "[loopback][rd]") {
  for (const Algorithm& algo : algorithms()) {
    if (algo.collective != Collective::allreduce || algo.needs_in_switch ||
        algo.needs_native_library)
      continue;
    for (int p : {2, 3, 4, 5, 8})
      for (std::size_t segment : {std::size_t{0}, std::size_t{64}}) {
        std::mutex lock;
        std::size_t violations = 0, wrong = 0;
        const std::size_t count = 301;
        Options opts;
        opts.segment_bytes = segment;
        run_ranks(p, [&](Communicator& comm) {
          SendReadChecker checked(comm);
          std::vector<float> buf(count);
          fill_input(buf.data(), count, DType::float32, ReduceOp::sum, Collective::allreduce,
                     comm.rank(), p, 0);
          algo.run(checked, MutView{buf.data(), count * sizeof(float)}, DType::float32,
                   ReduceOp::sum, opts);
          const CheckResult c = check_output(buf.data(), count, DType::float32, ReduceOp::sum,
                                             Collective::allreduce, comm.rank(), p, 0);
          const std::lock_guard<std::mutex> guard(lock);
          violations += checked.violations;
          wrong += c.wrong;
        });
        INFO(algo.name << " ranks=" << p << " segment=" << segment);
        CHECK(violations == 0);
        CHECK(wrong == 0);
      }
  }
}

TEST_CASE("dbtree: NCCL's trees, complementary and of logarithmic height", "[schedule][dbtree]") {
  // NCCL's drawing for 12 ranks: 0-8, 8-{4,10}, 4-{2,6}, 2-{1,3}, 6-{5,7}, 10-{9,11}.
  CHECK(nccl_btree(12).parent == std::vector<int>{-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 8, 10});
  // ... and for 13 ranks 12 hangs under 8 and has the one child 10.
  CHECK(nccl_btree(13).children[12] == std::vector<int>{10});
  for (int p = 1; p <= 64; ++p) {
    INFO("p=" << p);
    const auto trees = double_binary_tree(p);
    int height = 0;
    while ((1 << height) < p) ++height;
    for (const BinaryTree& tree : trees) {
      REQUIRE(tree.parent.size() == static_cast<std::size_t>(p));
      CHECK(tree.parent[static_cast<std::size_t>(tree.root)] == -1);
      CHECK(tree.height() == height);
      if (p > 1) CHECK(tree.children[static_cast<std::size_t>(tree.root)].size() == 1);
      for (int r = 0; r < p; ++r) {
        const auto me = static_cast<std::size_t>(r);
        CHECK(tree.children[me].size() <= 2);
        if (r != tree.root) {
          // Spans every rank: the parent chain reaches the root within p hops.
          REQUIRE(tree.parent[me] >= 0);
          int up = r, hops = 0;
          while (up != tree.root && hops <= p)
            up = tree.parent[static_cast<std::size_t>(up)], ++hops;
          CHECK(up == tree.root);
          CHECK(hops == tree.depth[me]);
          const auto& siblings = tree.children[static_cast<std::size_t>(tree.parent[me])];
          CHECK(std::count(siblings.begin(), siblings.end(), r) == 1);
        }
      }
    }
    CHECK(trees[1].root == (p % 2 == 0 ? p - 1 : 1 % p));
    for (int r = 0; r < p; ++r) {
      const auto me = static_cast<std::size_t>(r);
      const bool interior0 = !trees[0].children[me].empty();
      const bool interior1 = !trees[1].children[me].empty();
      CHECK(interior0 == (r % 2 == 0 && p > 1));
      if (interior0 && !(r == 0 && p % 2 == 1)) CHECK_FALSE(interior1);
    }
  }
}

TEST_CASE("dbtree: chunking", "[schedule][dbtree]") {
  CHECK(dbtree_chunks({0, 0}, kElem, 0).empty());
  CHECK(dbtree_chunks({40, 12}, kElem, 0) == std::vector<Block>{{40, 12}});
  CHECK(dbtree_chunks({0, 3 * kDbtreeMinChunkBytes}, kElem, 0).size() == 3);
  CHECK(dbtree_chunks({0, 1 << 24}, kElem, 0).size() == kDbtreeChunks);
  // A chunk size: ceil(elements / per_chunk) balanced chunks, none above the size.
  const auto chunks = dbtree_chunks({8, 10 * kElem}, kElem, 3 * kElem + 1);
  CHECK(chunks == std::vector<Block>{{8, 12}, {20, 12}, {32, 8}, {40, 8}});
  // Below one element: one element per chunk.
  CHECK(dbtree_chunks({0, 5 * kElem}, kElem, 1).size() == 5);
}

TEST_CASE("dbtree: pipelined schedules reduce every rank once and stay in bounds",
          "[schedule][dbtree]") {
  for (int p = 1; p <= 16; ++p)
    for (std::size_t count : {std::size_t{1}, static_cast<std::size_t>(p), std::size_t{41}})
      for (std::size_t chunk : {std::size_t{0}, kElem, 3 * kElem}) {
        INFO("p=" << p << " count=" << count << " chunk=" << chunk);
        std::vector<std::vector<Schedule>> ranks;
        for (int r = 0; r < p; ++r) ranks.push_back(dbtree_schedules(p, r, count, kElem, chunk));
        if (p > 1) {
          // c + 2H - 1 steps per tree.
          const auto halves = partition(count, 2, kElem);
          const auto trees = double_binary_tree(p);
          for (std::size_t h = 0; h < 2; ++h) {
            const std::size_t c = dbtree_chunks(halves[h], kElem, chunk).size();
            const std::size_t steps =
                c == 0 ? 0 : c + 2 * static_cast<std::size_t>(trees[h].height()) - 1;
            CHECK(ranks[0][2 * h].size() == steps);
            CHECK(ranks[0][2 * h + 1].size() == steps);
          }
        }
        const Buffers out = play_allreduce(ranks, count);
        for (const auto& b : out)
          for (unsigned v : b) CHECK(v == (1u << p) - 1);
      }
}

TEST_CASE("rhd rd and dbtree are exact over ranks 1..16 and awkward counts",
          "[loopback][rhd][rd][dbtree]") {
  for (const char* name : {"rhd", "rd", "dbtree"})
    for (int p = 1; p <= 16; ++p) {
      const auto q = static_cast<std::size_t>(p);
      for (std::size_t count :
           {std::size_t{0}, std::size_t{1}, q - 1, q, q + 1, test::large_count(1000003),
            test::large_count(std::size_t{1} << 20)})
        for (HdOrder order : {HdOrder::near, HdOrder::far})
          require_exact(name, p, count, DType::float32, ReduceOp::sum, 0, order);
    }
}

TEST_CASE("rhd rd and dbtree are exact for every dtype and op", "[loopback][rhd][rd][dbtree]") {
  for (const char* name : {"rhd", "rd", "dbtree"})
    for (int p : {1, 2, 3, 4, 7, 8, 16})
      for (std::size_t count : {std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{67}})
        for (DType t : all_dtypes())
          for (ReduceOp op : all_reduce_ops())
            for (HdOrder order : {HdOrder::near, HdOrder::far})
              require_exact(name, p, count, t, op, 0, order);
}

TEST_CASE("rhd rd and dbtree are exact with segmenting", "[loopback][rhd][rd][dbtree]") {
  // Tiny segments on small buffers (many segments per transfer), realistic ones on a large one.
  const std::vector<std::pair<std::size_t, std::vector<std::size_t>>> cases = {
      {7, {0, 4, 12}}, {1000, {0, 4, 12, 4096}}, {100003, {0, 4096, 1 << 16}}};
  for (const char* name : {"rhd", "rd", "dbtree"})
    for (int p : {2, 3, 5, 8, 13})
      for (const auto& [count, segments] : cases)
        for (std::size_t segment : segments)
          for (HdOrder order : {HdOrder::near, HdOrder::far})
            require_exact(name, p, count, DType::float32, ReduceOp::avg, segment, order);
}
