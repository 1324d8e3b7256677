// The algorithm string: parsing, canonical form, what it overrides, lists, plans, and every
// bad string's message naming its bad token.
#include <catch2/catch.hpp>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/tests/run_collective.hpp"

using namespace ddl;

TEST_CASE("algorithm strings parse into their fields", "[spec]") {
  const AlgorithmSpec s =
      parse_algorithm_spec("ddl:4x8x8:ring,hd,hd:rings=2,segment=65536,order=far");
  CHECK(s.name == "ddl");
  CHECK(s.dims == Dims::parse("4x8x8"));
  CHECK(s.methods == std::vector<IntraMethod>{IntraMethod::ring, IntraMethod::halving_doubling,
                                              IntraMethod::halving_doubling});
  CHECK(s.rings == 2);
  CHECK(s.segment_bytes == 65536u);
  CHECK(s.order == HdOrder::far);
  CHECK(s.to_string() == "ddl:4x8x8:ring,hd,hd:rings=2,segment=65536,order=far");
  // Keys in any order; the canonical string orders them.
  CHECK(parse_algorithm_spec("ddl:order=near,rings=3").to_string() == "ddl:rings=3,order=near");
  CHECK(parse_algorithm_spec("ddl:hd").methods ==
        std::vector<IntraMethod>{IntraMethod::halving_doubling});
  CHECK(parse_algorithm_spec("rhd").plain());
  CHECK(parse_algorithm_spec("ring:channels=8").channels == 8);
  CHECK(parse_algorithm_spec("ddl:4x2:chunks=16,rings=2").to_string() ==
        "ddl:4x2:rings=2,chunks=16");
  CHECK(parse_algorithm_spec("ddl:chunks=3").apply(Options{}).chunks == 3);
  CHECK(parse_algorithm_spec("ring:channels=4").apply(Options{}).channels == 4);
  CHECK_FALSE(parse_algorithm_spec("ring:channels=4").plain());
  CHECK(parse_algorithm_spec("hier:4x2").dims == Dims::parse("4x2"));
  // Overrides: only what is given.
  Options base;
  base.rings = 5;
  base.segment_bytes = 7;
  const Options o = parse_algorithm_spec("rhd:order=far").apply(base);
  CHECK(o.hd_order == HdOrder::far);
  CHECK(o.rings == 5);
  CHECK(o.segment_bytes == 7u);
}

TEST_CASE("bad algorithm strings name the bad token", "[spec][errors]") {
  const std::vector<std::pair<const char*, const char*>> bad = {
      {"nccl", "'nccl' is not an algorithm"},
      {"ddl:4x8x8:ring,hd", "gives 2 method(s) for the 3 dimension(s)"},
      {"ddl:ring:4x2", "'4x2' comes after"},
      {"ddl:4x2:4x2", "'4x2' comes after"},
      {"ddl:rings=0", "'rings=0' is out of range"},
      {"ddl:rings=two", "'rings=two' needs a whole number"},
      {"ddl:rings=2,rings=3", "'rings=3' is given twice"},
      {"ddl:colour=red", "'colour=red' has an unknown key"},
      {"rhd:order=sideways", "'order=sideways' needs near or far"},
      {"rhd:4x2", "'4x2' sets dims, which rhd does not take"},
      {"ring:rings=2", "'rings=2' sets rings, which ring does not take"},
      {"ddl:ring,tree", "'tree' is not a method (known: ring, hd)"},
      {"ddl:tree,ring", "'tree,ring' is neither dims"},
      {"ddl::ring", "'' is an empty field"},
      {"ddl:0x4", "'0x4' is not a grid"},
      {"ddl:segment=-1", "'segment=-1' is out of range"},
      {"ddl:4x2:ring,foo", "'foo' is not a method (known: ring, hd)"},
      {"ddl:hd,ring,tre", "'tre' is not a method (known: ring, hd)"},
      {"ring:channels=0", "'channels=0' is out of range (1..64)"},
      {"ring:channels=2,channels=2", "'channels=2' is given twice"},
      {"rhd:channels=2", "'channels=2' sets channels, which rhd does not take"},
      {"ring:chunks=4", "'chunks=4' sets chunks, which ring does not take"},
      {"ddl:chunks=0", "'chunks=0' is out of range (1..1024)"},
  };
  for (const auto& [text, why] : bad) {
    INFO(text);
    CHECK_THROWS_WITH(
        parse_algorithm_spec(text),
        Catch::Contains(std::string("bad algorithm '") + text + "'") && Catch::Contains(why));
  }
}

TEST_CASE("algorithm lists split where a new algorithm starts", "[spec]") {
  using V = std::vector<std::string>;
  CHECK(split_algorithm_list("ring,ddl") == V{"ring", "ddl"});
  CHECK(split_algorithm_list("ring,ddl:4x2:ring,hd,rhd:order=far") ==
        V{"ring", "ddl:4x2:ring,hd", "rhd:order=far"});
  // With dims, the methods field takes exactly as many methods: the next 'ring' is the ring.
  CHECK(split_algorithm_list("ddl:4x2:ring,ring,ring") == V{"ddl:4x2:ring,ring", "ring"});
  CHECK(split_algorithm_list("ddl:4x8x8:ring,hd,hd:rings=2,segment=64,rhd") ==
        V{"ddl:4x8x8:ring,hd,hd:rings=2,segment=64", "rhd"});
  CHECK(split_algorithm_list("ddl:hd,hd,dbtree") == V{"ddl:hd,hd", "dbtree"});
  // Methods short of the dims' count take the next token even when it is no method, so the
  // error names it ('foo') rather than the methods before it.
  CHECK(split_algorithm_list("ddl:4x2:ring,foo") == V{"ddl:4x2:ring,foo"});
  CHECK_THROWS_WITH(split_algorithm_list("ring,,ddl"), Catch::Contains("empty algorithm name"));
}

TEST_CASE("find_algorithm resolves strings to runnable, priced algorithms", "[spec][loopback]") {
  const Algorithm& far = find_algorithm("rhd:order=far");
  CHECK(far.name == "rhd:order=far");
  CHECK(&find_algorithm("rhd:order=far") == &far);  // one entry per canonical string
  CHECK(&find_algorithm("rhd") == find_registered("rhd"));
  // The string's grid and methods run: ddl on 2x4 with hd in both dimensions, exact.
  const Algorithm& d = find_algorithm("ddl:2x4:hd,hd:order=far");
  const test::Outcome out = test::run_collective(d, 8, 1001, DType::float32, ReduceOp::sum, {});
  CHECK(out.wrong == 0);
  // Priced with the string's fields: far-first over two classes (see test_schedule_cost.cpp).
  CostParams c;
  c.per_dim = {{1e-6, 1e-9}, {2e-6, 4e-9}};
  c.gamma = 1e-10;
  Options near;
  CHECK(model_time("rhd:order=far", Dims::parse("4x2"), c, 8000, near) ==
        Catch::Detail::Approx((18.4 + 3.2 + 2.1 + 2 + 3 + 18) * 1e-6));
}

TEST_CASE("plans: entries by size, validated, used by auto", "[spec][plan][loopback]") {
  const Plan p = plan_from_choices(4, {8, 16, 32, 64}, {"rhd", "rhd", "ring", "ddl:2x2:hd,hd"});
  CHECK(p.entries ==
        std::vector<PlanEntry>{{8, 16, "rhd"}, {32, 32, "ring"}, {64, 64, "ddl:2x2:hd,hd"}});
  p.validate();
  CHECK(p.entry_for(1).algorithm == "rhd");   // below all: the first
  CHECK(p.entry_for(20).algorithm == "rhd");  // in a gap: the one below
  CHECK(p.entry_for(32).algorithm == "ring");
  CHECK(p.entry_for(1 << 30).algorithm == "ddl:2x2:hd,hd");  // beyond: the last
  Plan overlap = p;
  overlap.entries[1].min_bytes = 16;
  CHECK_THROWS_WITH(overlap.validate(),
                    Catch::Contains("plan entry 1 (ring)") && Catch::Contains("inside or before"));
  Plan bad = p;
  bad.entries[0].algorithm = "broadcast_chain";
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("not an allreduce"));
  bad.entries[0].algorithm = "rhd:order=up";
  CHECK_THROWS_WITH(bad.validate(), Catch::Contains("'order=up'"));
  // auto runs the plan's choice; a plan for another world is refused.
  Options o;
  o.plan = std::make_shared<const Plan>(p);
  for (std::size_t count : {std::size_t{2}, std::size_t{8}, std::size_t{16}, std::size_t{1000}}) {
    INFO(count);
    CHECK(test::run_collective(find_algorithm("auto"), 4, count, DType::float32, ReduceOp::sum, o)
              .wrong == 0);
  }
  CHECK_THROWS_WITH(
      test::run_collective(find_algorithm("auto"), 2, 16, DType::float32, ReduceOp::sum, o),
      Catch::Contains("plan is for 4 ranks"));
  // auto's price is the plan's choice's.
  const CostParams u = uniform_costs(Dims::parse("2x2"));
  CHECK(model_time("auto", Dims::parse("2x2"), u, 64, o) ==
        model_time("ddl:2x2:hd,hd", Dims::parse("2x2"), u, 64, Options{}));
}
