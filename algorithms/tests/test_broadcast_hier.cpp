// Chain and binomial broadcast / reduce schedules, hier's schedule, and the three algorithms
// built on them (broadcast_chain, broadcast_binomial, hier) on the loopback communicator.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "algorithms/hier_steps.hpp"
#include "algorithms/tree_steps.hpp"
#include "run_collective.hpp"

namespace {

using namespace ddl;

constexpr std::size_t kElem = 4;

template <typename V>
auto& at(V& v, int i) {
  return v[static_cast<std::size_t>(i)];
}

// What one element of one rank holds: how many times each rank's input is summed into it.
using Content = std::vector<int>;
using Buffers = std::vector<std::vector<Content>>;  // [rank][element]

struct Delivery {
  std::size_t step;
  int receiver, sender;
  std::size_t element;
  bool reduce;
  Content before, sent;  // the receiver's and the sender's element before the step
};

// Plays the schedules of all ranks in lockstep on symbolic buffers. Checks that at every step
// the sends of each ordered pair equal, in order, the receives posted for it (what FIFO matching
// per (peer, tag) pairs), and that no rank sends from a range it receives into in the same
// step. Returns every element delivered, in order.
std::vector<Delivery> play(const std::vector<Schedule>& schedules, Buffers& buffers) {
  const int p = static_cast<int>(schedules.size());
  std::size_t steps = 0;
  for (const Schedule& s : schedules) steps = std::max(steps, s.size());
  std::vector<Delivery> log;
  for (std::size_t t = 0; t < steps; ++t) {
    auto step_of = [&](int r) {
      return t < at(schedules, r).size() ? &at(schedules, r)[t] : nullptr;
    };
    for (int from = 0; from < p; ++from)
      for (int to = 0; to < p; ++to) {
        std::vector<Transfer> sent, posted;
        if (const Step* s = step_of(from))
          for (const Transfer& x : s->sends)
            if (x.peer == to) sent.push_back({to, x.offset, x.bytes});
        if (const Step* s = step_of(to))
          for (const Transfer& x : s->recvs)
            if (x.peer == from) posted.push_back({to, x.offset, x.bytes});
        INFO("step " << t << " from " << from << " to " << to);
        REQUIRE(sent == posted);
      }
    const Buffers before = buffers;
    for (int r = 0; r < p; ++r) {
      const Step* s = step_of(r);
      if (!s) continue;
      for (const Transfer& in : s->recvs) {
        for (const Transfer& out : s->sends) {
          INFO("step " << t << " rank " << r);
          REQUIRE((in.offset + in.bytes <= out.offset || out.offset + out.bytes <= in.offset));
        }
        for (std::size_t e = in.offset / kElem; e < (in.offset + in.bytes) / kElem; ++e) {
          const Content& sent = at(before, in.peer)[e];
          Content& mine = at(buffers, r)[e];
          log.push_back({t, r, in.peer, e, s->reduce, mine, sent});
          for (int q = 0; q < p; ++q) at(mine, q) = (s->reduce ? at(mine, q) : 0) + at(sent, q);
        }
      }
    }
  }
  return log;
}

Group world(int p, int me) {
  Group g{{}, me};
  for (int r = 0; r < p; ++r) g.ranks.push_back(r);
  return g;
}

// Buffers where only `root` holds its input, or (root = -1) every rank holds its own.
Buffers inputs(int p, std::size_t count, int root) {
  Buffers b(static_cast<std::size_t>(p),
            std::vector<Content>(count, Content(static_cast<std::size_t>(p), 0)));
  for (int r = 0; r < p; ++r)
    if (root == -1 || r == root)
      for (Content& c : at(b, r)) at(c, r) = 1;
  return b;
}

bool empty(const Content& c) {
  return std::all_of(c.begin(), c.end(), [](int v) { return v == 0; });
}

// Both broadcasts: nothing is reduced, the root receives nothing, every element arrives only
// where it was missing (so at most once) from a rank that held it, and in the end every rank
// holds exactly the root's input (so it arrived at least once).
void check_broadcast(const std::vector<Delivery>& log, const Buffers& buffers, int root) {
  for (const Delivery& d : log) {
    INFO("step " << d.step << " rank " << d.receiver << " element " << d.element << " from "
                 << d.sender);
    CHECK_FALSE(d.reduce);
    CHECK(d.receiver != root);
    CHECK(empty(d.before));
    CHECK_FALSE(empty(d.sent));
  }
  const Buffers want = inputs(static_cast<int>(buffers.size()), buffers[0].size(), root);
  for (std::size_t r = 0; r < buffers.size(); ++r)
    for (std::size_t e = 0; e < buffers[r].size(); ++e) {
      INFO("rank " << r << " element " << e);
      CHECK(buffers[r][e] == at(want, root)[e]);
    }
}

// Every element of `rank` holds every rank's input exactly once.
void check_complete(const Buffers& buffers, int rank) {
  for (std::size_t e = 0; e < at(buffers, rank).size(); ++e) {
    INFO("rank " << rank << " element " << e);
    CHECK(at(buffers, rank)[e] == Content(buffers.size(), 1));
  }
}

// One schedule per rank of a p-rank world.
template <typename Build>
std::vector<Schedule> per_rank(int p, Build build) {
  std::vector<Schedule> s;
  for (int r = 0; r < p; ++r) s.push_back(build(r));
  return s;
}

void check_exact(const std::string& name, int p, std::size_t count, DType type, ReduceOp op,
                 const Options& opts) {
  const auto out = test::run_collective(find_algorithm(name), p, count, type, op, opts);
  INFO(name << " p " << p << " root " << opts.root << " dims '" << opts.dims.to_string() << "' "
            << to_string(type) << " " << to_string(op) << " count " << count << " segment "
            << opts.segment_bytes << ": " << out.first);
  CHECK(out.wrong == 0);
}

}  // namespace

TEST_CASE("chain_chunks: chunk sizes and default count", "[schedule][broadcast]") {
  const Block r{8, 40 * kElem};
  CHECK(chain_chunks(r, kElem, 0, 4).size() == kDefaultChainChunks);
  CHECK(chain_chunks(r, kElem, 0, 2).size() == 1);
  CHECK(chain_chunks(Block{0, 3 * kElem}, kElem, 0, 5).size() == 3);
  CHECK(chain_chunks(Block{0, 0}, kElem, 0, 5).empty());
  CHECK(chain_chunks(r, kElem, 1, 4).size() == 40);  // below one element: one element each
  // 40 elements of at most 3 (13 bytes round down to 12): 14 chunks covering the range.
  const std::vector<Block> c = chain_chunks(r, kElem, 13, 4);
  REQUIRE(c.size() == 14);
  std::size_t next = r.offset;
  for (const Block& b : c) {
    CHECK(b.offset == next);
    CHECK((b.bytes <= 3 * kElem && b.bytes % kElem == 0));
    next += b.bytes;
  }
  CHECK(next == r.offset + r.bytes);
}

TEST_CASE("chain_broadcast: each chunk reaches every rank once, from its predecessor",
          "[schedule][broadcast]") {
  for (int p = 1; p <= 9; ++p)
    for (int root = 0; root < p; ++root)
      for (std::size_t chunk : {0, 4, 12}) {
        INFO("p " << p << " root " << root << " chunk bytes " << chunk);
        const Block all{0, (static_cast<std::size_t>(p) + 6) * kElem};
        const auto s = per_rank(
            p, [&](int r) { return chain_broadcast(world(p, r), root, all, kElem, chunk, 0); });
        const std::size_t c = chain_chunks(all, kElem, chunk, p).size();
        for (const Schedule& x : s)
          CHECK(x.size() == (p == 1 ? 0 : c + static_cast<std::size_t>(p) - 2));
        Buffers b = inputs(p, all.bytes / kElem, root);
        const std::vector<Delivery> log = play(s, b);
        for (const Delivery& d : log) CHECK(d.sender == (d.receiver + p - 1) % p);
        check_broadcast(log, b, root);
      }
}

TEST_CASE("binomial_broadcast: each non-root receives once, from a rank that has the data",
          "[schedule][broadcast]") {
  for (int p = 1; p <= 17; ++p)
    for (int root = 0; root < p; ++root) {
      INFO("p " << p << " root " << root);
      const auto s = per_rank(p, [&](int r) {
        return binomial_broadcast(world(p, r), root, {0, 3 * kElem}, kElem, 0);
      });
      for (const Schedule& x : s) CHECK(static_cast<int>(x.size()) == binomial_steps(p));
      Buffers b = inputs(p, 3, root);
      check_broadcast(play(s, b), b, root);
    }
  CHECK(std::vector<int>{binomial_steps(1), binomial_steps(2), binomial_steps(5), binomial_steps(8),
                         binomial_steps(9)} == std::vector<int>{0, 1, 3, 3, 4});
}

TEST_CASE("chain_reduce and binomial_reduce: every input reaches the root exactly once",
          "[schedule][reduce]") {
  for (int p = 1; p <= 12; ++p)
    for (int root = 0; root < p; ++root) {
      INFO("p " << p << " root " << root);
      const Block all{0, 11 * kElem};
      for (std::size_t chunk : {0, 8}) {
        INFO("chain, chunk bytes " << chunk);
        const auto s = per_rank(
            p, [&](int r) { return chain_reduce(world(p, r), root, all, kElem, chunk, 0); });
        Buffers b = inputs(p, 11, -1);
        for (const Delivery& d : play(s, b)) CHECK((d.reduce && d.sender == (d.receiver + 1) % p));
        check_complete(b, root);
      }
      INFO("binomial");
      const auto s =
          per_rank(p, [&](int r) { return binomial_reduce(world(p, r), root, all, kElem, 0); });
      Buffers b = inputs(p, 11, -1);
      for (const Delivery& d : play(s, b)) CHECK(d.reduce);
      check_complete(b, root);
    }
  CHECK_THROWS_AS(chain_broadcast(world(4, 0), 4, Block{0, 16}, kElem, 0, 0), InvalidArgument);
  CHECK_THROWS_AS(binomial_reduce(world(4, 0), -1, Block{0, 16}, kElem, 0), InvalidArgument);
  CHECK_THROWS_AS(check_root(3, 3), InvalidArgument);
}

TEST_CASE("hier_allreduce: every rank ends with every input once, non-leaders stay in node",
          "[schedule][hier]") {
  for (const char* text : {"1", "8", "4x2", "2x4", "1x8", "8x1", "4x1x2", "2x2x2", "3x5", "5x3",
                           "1x4", "2x3x2", "1x1x3"}) {
    const Dims dims = Dims::parse(text);
    const int p = dims.rank_count(), g = dims.extent(0);
    for (std::size_t chunk : {0, 4}) {
      INFO("dims " << text << " chunk bytes " << chunk);
      const std::size_t count = 2 * static_cast<std::size_t>(p) + 3;
      const auto s = per_rank(p, [&](int r) {
        return hier_allreduce(dims, r, {0, count * kElem}, kElem, chunk);
      });
      for (int r = 0; r < p; ++r) {
        CHECK(at(s, r).size() == s[0].size());  // lockstep: every rank has every step
        for (const Step& step : r % g ? at(s, r) : Schedule{})
          for (const auto* list : {&step.sends, &step.recvs})
            for (const Transfer& x : *list) CHECK(x.peer / g == r / g);
      }
      Buffers b = inputs(p, count, -1);
      play(s, b);
      for (int r = 0; r < p; ++r) check_complete(b, r);
    }
  }
  const Group leaders = hier_leaders(Dims::parse("4x1x2"), 4);
  CHECK((leaders.ranks == std::vector<int>{0, 4} && leaders.me == 1));
  const Group node = hier_node(Dims::parse("3x5"), 7);
  CHECK((node.ranks == std::vector<int>{6, 7, 8} && node.me == 1));
}

TEST_CASE("broadcast_chain and broadcast_binomial: every root, dtypes, segments, loopback",
          "[loopback][broadcast]") {
  for (const char* name : {"broadcast_chain", "broadcast_binomial"}) {
    Options opts;
    for (int p = 1; p <= 9; ++p)
      for (opts.root = 0; opts.root < p; ++opts.root)
        for (std::size_t count :
             {std::size_t{0}, std::size_t{1}, p + std::size_t{1}, test::large_count(1000003)})
          // Tiny segments on the big count would make 333k chunks: one segmented big case below.
          for (opts.segment_bytes = 0; opts.segment_bytes <= (count > 1000 ? 0 : 12);
               opts.segment_bytes += 12)
            check_exact(name, p, count, DType::float32, ReduceOp::sum, opts);
    for (DType type : all_dtypes())
      for (int p : {3, 7}) {
        opts.root = p - 1;
        opts.segment_bytes = 0;
        check_exact(name, p, 29, type, ReduceOp::max, opts);
        opts.segment_bytes = 64 * 1024;
        check_exact(name, p, 300007, type, ReduceOp::max, opts);
      }
    for (int root : {-1, 4}) {
      opts.root = root;
      INFO(name << " root " << root);
      CHECK_THROWS_AS(check_exact(name, 4, 10, DType::float32, ReduceOp::sum, opts),
                      InvalidArgument);
    }
  }
}

TEST_CASE("hier: dims factorizations x dtypes x ops, loopback", "[loopback][hier]") {
  for (const char* text : {"1", "2", "4", "1x4", "4x2", "2x4", "8x1", "4x1x2", "2x2x2", "3x5",
                           "5x3", "3x2", "2x3x2"}) {
    Options opts;
    opts.dims = Dims::parse(text);
    const int p = opts.dims.rank_count();
    for (DType type : all_dtypes())
      for (ReduceOp op : all_reduce_ops())
        for (std::size_t count :
             {std::size_t{0}, std::size_t{1}, p + std::size_t{1}, std::size_t{53}})
          for (opts.segment_bytes = 0; opts.segment_bytes <= 8; opts.segment_bytes += 8)
            check_exact("hier", p, count, type, op, opts);
  }
}

TEST_CASE("hier: large buffers, default dims, dims that miss the world, loopback",
          "[loopback][hier]") {
  for (const char* text : {"", "4x2", "4x4", "3x5"})
    for (std::size_t segment : {0, 256 * 1024}) {
      Options opts;
      opts.segment_bytes = segment;
      if (*text) opts.dims = Dims::parse(text);
      check_exact("hier", *text ? opts.dims.rank_count() : 6, test::large_count(1000003),
                  DType::float32, ReduceOp::avg, opts);
    }
  Options opts;
  opts.dims = Dims::parse("4x2");
  CHECK_THROWS_AS(check_exact("hier", 6, 10, DType::float32, ReduceOp::sum, opts), InvalidArgument);
}
