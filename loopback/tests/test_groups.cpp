// Groups on the loopback backend (Communicator::split): MPI_Comm_split's semantics, nested
// splits, groups whose messages share world pairs and tags without crossing, and every allreduce
// the loopback tests run, exact inside the tensor- and data-parallel groups of hybrid layouts.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/group_grid.hpp"
#include "algorithms/registry.hpp"
#include "loopback/loopback_communicator.hpp"
#include "loopback/tests/rank_notes.hpp"

using namespace ddl;
using ddl::test::Notes;

namespace {

// Each member's rank in `world`, gathered over the group itself: member i learns every other's.
std::vector<int> world_ranks(Communicator& group, int world_rank) {
  std::vector<int> ranks(static_cast<std::size_t>(group.size()), -1);
  ranks[static_cast<std::size_t>(group.rank())] = world_rank;
  std::vector<Request> rs;
  for (int p = 0; p < group.size(); ++p) {
    if (p == group.rank()) continue;
    rs.push_back(group.irecv(p, {&ranks[static_cast<std::size_t>(p)], sizeof(int)}, 3));
    rs.push_back(group.isend(p, {&ranks[static_cast<std::size_t>(group.rank())], sizeof(int)}, 3));
  }
  group.wait_all(rs);
  return ranks;
}

// The allreduce algorithms the loopback matrix runs (algorithms/tests/test_algorithms.cpp).
std::vector<const Algorithm*> loopback_allreduces() {
  std::vector<const Algorithm*> out;
  for (const Algorithm& a : algorithms())
    if (a.collective == Collective::allreduce && !a.needs_in_switch && !a.needs_native_library)
      out.push_back(&a);
  return out;
}

// Runs `algo` in `group` on the check pattern; the first wrong element, or "" when exact.
std::string allreduce_in(Communicator& group, const Algorithm& algo, std::size_t count,
                         const Options& opts) {
  std::vector<float> buf(count);
  fill_input(buf.data(), count, DType::float32, ReduceOp::sum, Collective::allreduce, group.rank(),
             group.size(), opts.root);
  algo.run(group, {buf.data(), buf.size() * sizeof(float)}, DType::float32, ReduceOp::sum, opts);
  const CheckResult c = check_output(buf.data(), count, DType::float32, ReduceOp::sum,
                                     Collective::allreduce, group.rank(), group.size(), opts.root);
  if (c.wrong == 0) return {};
  return algo.name + " in a group of " + std::to_string(group.size()) + ": rank " +
         std::to_string(group.rank()) + " index " + std::to_string(c.first_wrong) + " got " +
         std::to_string(c.got) + " expected " + std::to_string(c.expected);
}

}  // namespace

TEST_CASE("split: colors form groups ranked by key, then by rank", "[loopback][groups]") {
  Notes notes(6);
  run_ranks(6, [&](Communicator& world) {
    // Parity groups with the key reversing the order: group c holds 4+c, 2+c, c.
    const std::unique_ptr<Communicator> group = world.split(world.rank() % 2, -world.rank());
    REQUIRED(group);
    REQUIRED(group->size() == 3);
    const int c = world.rank() % 2;
    EXPECT(group->rank() == (4 + c - world.rank()) / 2);
    EXPECT(world_ranks(*group, world.rank()) == std::vector<int>{4 + c, 2 + c, c});
    // Equal keys: the rank here decides.
    const std::unique_ptr<Communicator> all = world.split(7, 0);
    REQUIRED(all);
    EXPECT(all->size() == 6);
    EXPECT(all->rank() == world.rank());
  });
  notes.check();
}

TEST_CASE("split: a negative color gets no communicator", "[loopback][groups]") {
  Notes notes(5);
  run_ranks(5, [&](Communicator& world) {
    const std::unique_ptr<Communicator> group = world.split(world.rank() < 2 ? -1 : 4, 0);
    if (world.rank() < 2) {
      EXPECT(group == nullptr);
      return;
    }
    REQUIRED(group);
    EXPECT(group->size() == 3);
    EXPECT(group->rank() == world.rank() - 2);
    EXPECT(world_ranks(*group, world.rank()) == std::vector<int>{2, 3, 4});
  });
  notes.check();
}

TEST_CASE("split: a group splits again", "[loopback][groups]") {
  Notes notes(8);
  run_ranks(8, [&](Communicator& world) {
    const std::unique_ptr<Communicator> half = world.split(world.rank() / 4, world.rank());
    REQUIRED(half);
    EXPECT(half->size() == 4);
    // Inside each half, pairs of the same parity, the higher world rank first.
    const std::unique_ptr<Communicator> pair = half->split(half->rank() % 2, -half->rank());
    REQUIRED(pair);
    EXPECT(pair->size() == 2);
    const int base = world.rank() / 4 * 4 + world.rank() % 2;
    EXPECT(world_ranks(*pair, world.rank()) == std::vector<int>{base + 2, base});
    // A split of the inner group with every rank apart.
    const std::unique_ptr<Communicator> alone = pair->split(pair->rank(), 0);
    REQUIRED(alone);
    EXPECT(alone->size() == 1);
    EXPECT(alone->rank() == 0);
  });
  notes.check();
}

TEST_CASE("split: groups on the same world pairs and tags never cross-match",
          "[loopback][groups]") {
  // Two splits with one color make two groups of the same members: with the world, three
  // communicators whose messages between ranks 0 and 1 share world pair and tag. Rank 1
  // receives them in the opposite order of their sends; each lands in its own communicator.
  Notes notes(2);
  run_ranks(2, [&](Communicator& world) {
    const std::unique_ptr<Communicator> first = world.split(0, 0);
    const std::unique_ptr<Communicator> second = world.split(0, 0);
    Communicator* comms[] = {&world, first.get(), second.get()};
    int values[] = {10, 11, 12};
    if (world.rank() == 0) {
      Request sends[3];
      for (int i = 0; i < 3; ++i) sends[i] = comms[i]->isend(1, {&values[i], sizeof(int)}, 5);
      for (int i = 0; i < 3; ++i) comms[i]->wait(sends[i]);
    } else {
      int got[3] = {};
      Request recvs[3];
      for (int i = 2; i >= 0; --i) recvs[i] = comms[i]->irecv(0, {&got[i], sizeof(int)}, 5);
      for (int i = 2; i >= 0; --i) comms[i]->wait(recvs[i]);
      EXPECT(got[0] == 10);
      EXPECT(got[1] == 11);
      EXPECT(got[2] == 12);
    }
  });
  notes.check();
}

TEST_CASE("every allreduce is exact in the TP and DP groups of hybrid layouts",
          "[loopback][groups]") {
  struct Layout {
    int tp, pp, dp;
    Dims machine;  // GPUs per node x nodes
  };
  const Layout layouts[] = {{2, 2, 2, Dims({4, 2})},
                            {4, 2, 2, Dims({4, 4})},
                            {2, 2, 4, Dims({8, 2})},
                            {2, 1, 8, Dims({4, 4})}};
  for (const Layout& l : layouts)
    DYNAMIC_SECTION("tp " << l.tp << " pp " << l.pp << " dp " << l.dp) {
      const int ranks = l.tp * l.pp * l.dp;
      std::vector<std::string> wrong(static_cast<std::size_t>(ranks));
      Notes notes(ranks);
      run_ranks(ranks, [&](Communicator& world) {
        // rank = t + tp * (p + pp * d): TP consecutive, PP strided by tp, DP by tp * pp.
        const int r = world.rank();
        const int t = r % l.tp, p = r / l.tp % l.pp, d = r / (l.tp * l.pp);
        const std::unique_ptr<Communicator> tp = world.split(r / l.tp, r);
        const std::unique_ptr<Communicator> pp = world.split(t + l.tp * d, r);
        const std::unique_ptr<Communicator> dp = world.split(t + l.tp * p, r);
        REQUIRED(tp && pp && dp);
        EXPECT(tp->size() == l.tp);
        EXPECT(pp->size() == l.pp);
        EXPECT(dp->size() == l.dp);
        // Each group's grid in the machine, from its members (sorted world ranks, key = rank).
        const Dims tp_grid = group_grid(l.machine, world_ranks(*tp, r));
        const Dims dp_grid = group_grid(l.machine, world_ranks(*dp, r));
        std::string& first = wrong[static_cast<std::size_t>(r)];
        for (const Algorithm* algo : loopback_allreduces())
          for (std::size_t count : {std::size_t{1}, std::size_t{1031}}) {
            Options opts;
            opts.dims = tp_grid;
            if (first.empty()) first = allreduce_in(*tp, *algo, count, opts);
            opts.dims = dp_grid;
            if (first.empty()) first = allreduce_in(*dp, *algo, count, opts);
          }
      });
      notes.check();
      for (const std::string& w : wrong) CHECK(w == "");
    }
}
