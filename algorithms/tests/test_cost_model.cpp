// The analytical model against values computed by hand from the formulas in the README: every
// registered algorithm's cost prices its own schedules (schedule_cost.hpp), so these also check
// that the schedules are the ones the closed forms describe.
#include <catch2/catch.hpp>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"

using namespace ddl;
using Catch::Detail::Approx;

namespace {
// Dimension 1: 1 us, 1 ns/B; dimension 2: 2 us, 4 ns/B; reduction 0.1 ns/B.
CostParams costs(std::vector<LinkCost> per_dim, double gamma) {
  CostParams c;
  c.per_dim = std::move(per_dim);
  c.gamma = gamma;
  return c;
}
const CostParams two_level = costs({{1e-6, 1e-9}, {2e-6, 4e-9}}, 1e-10);
const CostParams one_level = costs({{1e-6, 1e-9}}, 1e-10);
}  // namespace

TEST_CASE("ring and rhd follow their closed forms", "[cost]") {
  const Options o;
  // 2(p-1)(α + S/p β) + (p-1) S/p γ with p = 4, S = 4000.
  CHECK(model_time("ring", Dims::flat(4), one_level, 4000, o) == Approx(12.3e-6));
  // The flat ring over 4x2 pays the slower class: 14 (2e-6 + 1000 * 4e-9) + 7000e-10.
  CHECK(model_time("ring", Dims::parse("4x2"), two_level, 8000, o) == Approx(84.7e-6));
  // p = 8: 2 log2 8 α + 2 (7/8) S β + (7/8) S γ with S = 8000.
  CHECK(model_time("rhd", Dims::flat(8), one_level, 8000, o) == Approx(6e-6 + 14e-6 + 0.7e-6));
  // p = 6 folds onto 4: rhd(4) + 2 (α + S β) + S γ.
  CHECK(model_time("rhd", Dims::flat(6), one_level, 8000, o) ==
        Approx(4e-6 + 12e-6 + 0.6e-6 + 2 * (1e-6 + 8e-6) + 0.8e-6));
  CHECK(model_time("reduce_scatter", Dims::flat(4), one_level, 4000, o) ==
        Approx(3 * 2e-6 + 0.3e-6));
  CHECK(model_time("allgather", Dims::flat(4), one_level, 4000, o) == Approx(6e-6));
  CHECK(model_time("broadcast_binomial", Dims::flat(5), one_level, 1000, o) == Approx(3 * 2e-6));
}

TEST_CASE("ddl's dimensions move shrinking pieces", "[cost][ddl]") {
  Options o;
  // Dimension 1 (d = 4) on 8000 B: 6 us + 12 us + 0.6 us; dimension 2 (d = 2) on 2000 B:
  // 4 us + 8 us + 0.1 us.
  CHECK(model_time("ddl", Dims::parse("4x2"), two_level, 8000, o) == Approx(30.7e-6));
  // Two slices in rotated orders, in lockstep: each step pays its slowest transfer plus both
  // reductions; where both slices are in dimension 1 they share the rank's one link of that
  // class (one α, their bytes added). Hand-expanded step by step (slice 0 | slice 1):
  // 1000 B dim 1 | 2000 B dim 2: 10 + 0.3; 1000 | 500 B both dim 1: 2.5 + 0.15 (twice);
  // 500 B dim 2 | 500 B dim 1: 4 + 0.1; back: 4, 2.5, 2.5, 10 us.
  o.rings = 2;
  CHECK(model_time("ddl", Dims::parse("4x2"), two_level, 8000, o) ==
        Approx((10.3 + 2.65 + 2.65 + 4.1 + 4 + 2.5 + 2.5 + 10) * 1e-6));
  // Halving-doubling in dimension 1: distances 2, 1 on 8000 B (4000, 2000 B), back 2000,
  // 4000 B; then the ring along dimension 2 on the 2000 B piece as above.
  o.rings = 1;
  o.methods = {IntraMethod::halving_doubling, IntraMethod::ring};
  CHECK(model_time("ddl", Dims::parse("4x2"), two_level, 8000, o) ==
        Approx((5e-6 + 3e-6 + 0.6e-6) + (3e-6 + 5e-6) + 12.1e-6));
}

TEST_CASE("hier: chain in the node, ring among leaders", "[cost]") {
  // 8 chunks in the 4-GPU node: 10 (2 α0 + 1000 (2 β0 + γ)) = 41 us; leaders' ring over 2
  // nodes on 8000 B: (2 + 16 + 0.4) + (2 + 16) us.
  CHECK(model_time("hier", Dims::parse("4x2"), two_level, 8000, Options{}) == Approx(77.4e-6));
}

TEST_CASE("dbtree: every rank's sends of a step share its link", "[cost]") {
  // p = 2: each rank is root of one tree and leaf of the other; 256 KiB gives 2 chunks of
  // 64 KiB per tree and H = 1, 3 steps. Step 0 sends chunk 0 up (one chunk each way per rank),
  // step 1 chunk 1 up and chunk 0 down (two, sharing the link), step 2 chunk 1 down (one); the
  // two up steps each reduce the root's one child's chunk (S/4).
  const double S = 256 * 1024;
  CHECK(model_time("dbtree", Dims::flat(2), one_level, 256 * 1024, Options{}) ==
        Approx(3 * 1e-6 + 4 * S / 4 * 1e-9 + 2 * S / 4 * 1e-10));
}

TEST_CASE("per-size link costs price each message at its own size", "[cost]") {
  // α 1 us below 64 KiB, 50 us from there; β 1 ns/B, γ 0.1 ns/B throughout.
  CostParams c = one_level;
  c.message = [](int, double bytes) { return LinkCost{bytes < 65536 ? 1e-6 : 50e-6, 1e-9}; };
  const Options o;
  // ring, p = 4, S = 512 KiB: 6 blocks of 128 KiB at α = 50 us.
  const double S = 512 * 1024;
  CHECK(model_time("ring", Dims::flat(4), c, 512 * 1024, o) ==
        Approx(6 * (50e-6 + S / 4 * 1e-9) + 3 * S / 4 * 1e-10));
  // rhd, p = 4: halves (256 KiB, α 50 us) then quarters (128 KiB, α 50 us); p = 8 on 256 KiB
  // adds eighths of 32 KiB at α 1 us.
  CHECK(model_time("rhd", Dims::flat(4), c, 512 * 1024, o) ==
        Approx(2 * (50e-6 + S / 2 * 1e-9) + 2 * (50e-6 + S / 4 * 1e-9) + 3 * S / 4 * 1e-10));
  const double T = 256 * 1024;
  CHECK(model_time("rhd", Dims::flat(8), c, 256 * 1024, o) ==
        Approx(2 * (50e-6 + T / 2 * 1e-9) + 2 * (50e-6 + T / 4 * 1e-9) + 2 * (1e-6 + T / 8 * 1e-9) +
               7 * T / 8 * 1e-10));
  // dbtree, p = 2, S = 1 MiB: 8 chunks of 64 KiB per tree (α 50 us), 9 steps: one chunk each
  // way in the first and the last, two (up and down) in the 7 between, 8 up steps reducing one
  // chunk; at S = 64 KiB each tree's half is one chunk of 32 KiB (α 1 us): up, then down.
  const double U = 1024 * 1024;
  CHECK(model_time("dbtree", Dims::flat(2), c, 1024 * 1024, o) ==
        Approx(9 * 50e-6 + 16 * U / 16 * 1e-9 + 8 * U / 16 * 1e-10));
  CHECK(model_time("dbtree", Dims::flat(2), c, 64 * 1024, o) ==
        Approx(2 * (1e-6 + 32768 * 1e-9) + 32768 * 1e-10));
  // Without the per-size costs, per_dim (1 us) everywhere.
  CHECK(model_time("dbtree", Dims::flat(2), one_level, 1024 * 1024, o) ==
        Approx(9 * 1e-6 + 16 * U / 16 * 1e-9 + 8 * U / 16 * 1e-10));
}

TEST_CASE("peer-read factors slow the receives into bytes the receiver sent", "[cost]") {
  // Every such receive takes 1.5 times its own time: a ring allreduce's allgather, rhd's
  // doubling steps, ddl's allgather steps, hier's chain broadcast and leaders' allgather; not a
  // lone allgather or a reduce-scatter; dbtree's down chunk only where it is alone on the link.
  CostParams c = one_level;
  c.peer_read = [](int, int, double) { return 1.5; };
  CostParams two = two_level;
  two.peer_read = c.peer_read;
  const Options o;
  CHECK(model_time("ring", Dims::flat(4), c, 4000, o) ==
        Approx(3 * 2e-6 + 0.3e-6 + 1.5 * 3 * 2e-6));
  CHECK(model_time("rhd", Dims::flat(8), c, 8000, o) ==
        Approx(2.5 * (1e-6 + 4e-6) + 2.5 * (1e-6 + 2e-6) + 2.5 * (1e-6 + 1e-6) + 0.7e-6));
  // p = 6 folds onto 4 ranks; the extra ranks get the result back into the buffer they sent.
  CHECK(model_time("rhd", Dims::flat(6), c, 8000, o) ==
        Approx(2.5 * (1e-6 + 4e-6) + 2.5 * (1e-6 + 2e-6) + 0.6e-6 + 2.5 * (1e-6 + 8e-6) + 0.8e-6));
  // ddl on 4x2 (as in "ddl's dimensions move shrinking pieces"): reduce-scatter 3 steps of 3 us
  // + 0.6 us along dimension 1, 1 step of 6 us + 0.1 us along dimension 2; the allgather steps
  // (the same transfers back) x 1.5.
  CHECK(model_time("ddl", Dims::parse("4x2"), two, 8000, o) ==
        Approx((9e-6 + 0.6e-6) + (6e-6 + 0.1e-6) + 1.5 * (9e-6 + 6e-6)));
  // hier on 4x2: 10 chain steps of (1 + 1.5) (α0 + 1000 β0) + 1000 γ, the leaders' ring with its
  // allgather x 1.5.
  CHECK(model_time("hier", Dims::parse("4x2"), two, 8000, o) ==
        Approx(10 * (2.5 * 2e-6 + 0.1e-6) + (18e-6 + 0.4e-6) + 1.5 * 18e-6));
  CHECK(model_time("allgather", Dims::flat(4), c, 4000, o) ==
        model_time("allgather", Dims::flat(4), one_level, 4000, o));
  CHECK(model_time("reduce_scatter", Dims::flat(4), c, 4000, o) ==
        model_time("reduce_scatter", Dims::flat(4), one_level, 4000, o));
  // dbtree, p = 2, 256 KiB (as in "dbtree: every rank's sends ..."): step 1's down chunk shares
  // the link with an up chunk (2 chunks' time beats 1.5 x one); step 2's is alone: 1.5 x.
  const double S = 256 * 1024;
  CHECK(model_time("dbtree", Dims::flat(2), c, 256 * 1024, o) ==
        Approx(2 * 1e-6 + 3 * S / 4 * 1e-9 + 1.5 * (1e-6 + S / 4 * 1e-9) + 2 * S / 4 * 1e-10));
}

TEST_CASE("auto takes the argmin", "[cost]") {
  const Options o;
  const Dims flat16 = Dims::flat(16);
  const CostParams uniform = uniform_costs(flat16);
  // 8 bytes: latency decides, and rd has the fewest steps (4 against rhd's 8 and the ring's 30).
  CHECK(best_allreduce(flat16, uniform, 8, o) == "rd");
  for (std::size_t bytes : {std::size_t{8}, std::size_t{1} << 20, std::size_t{1} << 28}) {
    const std::string best = best_allreduce(flat16, uniform, bytes, o);
    for (const char* name : {"ring", "ddl", "rhd", "rd", "dbtree", "hier"})
      CHECK(model_time(best, flat16, uniform, bytes, o) <=
            model_time(name, flat16, uniform, bytes, o));
    CHECK(model_time("auto", flat16, uniform, bytes, o) ==
          model_time(best, flat16, uniform, bytes, o));
  }
}

TEST_CASE("the model rejects what it cannot price", "[cost][errors]") {
  CHECK_THROWS_WITH(model_time("ring", Dims::parse("4x2"), one_level, 8, Options{}),
                    Catch::Contains("1 link classes") && Catch::Contains("'4x2'"));
  CHECK_THROWS_WITH(model_time("nccl", Dims::flat(4), one_level, 8, Options{}),
                    Catch::Contains("'nccl'"));
  CHECK(model_time("ring", Dims::flat(1), one_level, 1 << 20, Options{}) == 0);
}
