// The search space and plan files, without a simulator.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/error.hpp"
#include "planner/candidates.hpp"
#include "planner/plan_file.hpp"

using namespace ddl;

TEST_CASE("candidates: every factorization x method x rings x order, all parsable", "[planner]") {
  const std::vector<std::string> c = candidate_algorithms(8, SearchSpace{});
  const std::set<std::string> unique(c.begin(), c.end());
  CHECK(unique.size() == c.size());
  for (const std::string& s : c) CHECK(parse_algorithm_spec(s).to_string() == s);
  for (const char* s : {"ring", "rhd", "rhd:order=far", "rd", "dbtree", "hier", "ddl:8:ring",
                        "ddl:8:hd", "ddl:8:hd:order=far", "ddl:2x4:ring,hd:rings=2",
                        "ddl:2x2x2:ring,ring,ring", "ddl:4x2:hd,ring:rings=2,order=far"})
    CHECK(unique.count(s) == 1);
  // hd on 2 ranks is ring's one exchange of halves: not a candidate of its own.
  for (const char* s : {"ddl:2x4:hd,ring", "ddl:2x2x2:ring,hd,ring", "ddl:4x2:ring,hd"})
    CHECK(unique.count(s) == 0);
  // 8 = 8, 2x4, 4x2, 2x2x2: methods 2 + 2 + 2 + 1 = 7 assignments; rings 2 on the 5 of 2+
  // dims; far for each with hd (8:hd once, 2x4:ring,hd and 4x2:hd,ring with both ring counts):
  // 7 + 5 + 5 = 17 ddl strings, plus 6 others; and the 5 grids of 2+ dims pipelined over 4 and
  // 16 chunks: 10 more (ring's channels only where the tool gives a node's GPUs).
  CHECK(c.size() == 33);
  CHECK(unique.count("ddl:2x2x2:ring,ring,ring:chunks=16") == 1);
  // hd only on power-of-two extents: 6 = 6, 2x3, 3x2.
  for (const std::string& s : candidate_algorithms(6, SearchSpace{}))
    CHECK(s.find("ddl:6:hd") == std::string::npos);
  CHECK(candidate_algorithms(1, SearchSpace{}) == std::vector<std::string>{"ring"});
}

TEST_CASE("candidates of another collective: its own algorithms, grids where they take them",
          "[planner]") {
  CHECK(candidate_algorithms(8, SearchSpace{}, Collective::alltoall) ==
        std::vector<std::string>{"alltoall_pairwise", "alltoall_linear", "alltoall_bruck",
                                 "alltoall_hier"});
  CHECK(candidate_algorithms(8, SearchSpace{}, Collective::broadcast) ==
        std::vector<std::string>{"broadcast_chain", "broadcast_binomial"});
  // Reduce-scatter: ring, hd, hier, hd far-first, then ddl's grids as the allreduce's are
  // searched (7 method assignments, rings 2 on the 5 of 2+ dims, far where hd occurs: 17),
  // no chunks (the reduce-scatter takes none).
  const std::vector<std::string> rs =
      candidate_algorithms(8, SearchSpace{}, Collective::reduce_scatter);
  CHECK(std::vector<std::string>(rs.begin(), rs.begin() + 4) ==
        std::vector<std::string>{"reduce_scatter", "reduce_scatter_hd", "reduce_scatter_hier",
                                 "reduce_scatter_hd:order=far"});
  CHECK(rs.size() == 4 + 17);
  for (const std::string& s : rs)
    CHECK(find_algorithm(parse_algorithm_spec(s).name).collective == Collective::reduce_scatter);
  CHECK(every_size_candidates(Collective::alltoall).empty());
}

TEST_CASE("candidate variants: other ring counts, far-first, channels and chunks, nothing else",
          "[planner]") {
  using V = std::vector<std::string>;
  const SearchSpace space;
  CHECK(candidate_variants("ddl:2x4:hd,ring", space) ==
        V{"ddl:2x4:hd,ring:order=far", "ddl:2x4:hd,ring:rings=2",
          "ddl:2x4:hd,ring:rings=2,order=far", "ddl:2x4:hd,ring:chunks=4",
          "ddl:2x4:hd,ring:chunks=16"});
  CHECK(candidate_variants("ddl:2x4:ring,ring", space) == V{"ddl:2x4:ring,ring:rings=2",
                                                            "ddl:2x4:ring,ring:chunks=4",
                                                            "ddl:2x4:ring,ring:chunks=16"});
  CHECK(candidate_variants("ddl:8:hd", space) == V{"ddl:8:hd:order=far"});  // one dim: no chunks
  CHECK(candidate_variants("rhd", space) == V{"rhd:order=far"});
  CHECK(candidate_variants("ring", space).empty());  // channels: the tools give a node's GPUs
  SearchSpace rails = space;
  rails.channels = {8};
  CHECK(candidate_variants("ring", rails) == V{"ring:channels=8"});
  // The base space plus every variant is the whole space.
  SearchSpace base;
  base.rings = {1};
  base.both_orders = false;
  base.chunks = {};
  std::set<std::string> all;
  for (const std::string& c : candidate_algorithms(8, base)) {
    all.insert(c);
    for (const std::string& v : candidate_variants(c, space)) all.insert(v);
  }
  const std::vector<std::string> whole = candidate_algorithms(8, space);
  CHECK(all == std::set<std::string>(whole.begin(), whole.end()));
}

TEST_CASE("segment variants: each segment below the candidate's largest transfer", "[planner]") {
  using V = std::vector<std::string>;
  const SearchSpace space;  // 64K, 256K, 1M, 4M
  constexpr std::size_t M = std::size_t{1} << 20;
  const Dims flat = Dims::parse("8");
  const Dims grid = Dims::parse("4x2");
  // ring on 8 ranks moves blocks of bytes / 8: 512K at 4 MB, 32K at 256 KB (nothing to cut).
  CHECK(largest_transfer("ring", flat, 4 * M) == 512 * 1024);
  CHECK(segment_variants("ring", flat, 4 * M, space) ==
        V{"ring:segment=65536", "ring:segment=262144"});
  CHECK(segment_variants("ring", flat, 256 * 1024, space).empty());
  // rhd exchanges halves on a power of two; its fix-up sends the whole buffer otherwise. At
  // 16 MB its 8 MB halves get the two largest sizes below them: 1M and 4M.
  CHECK(largest_transfer("rhd", flat, 4 * M) == 2 * M);
  CHECK(largest_transfer("rhd", Dims::parse("6"), 4 * M) == 4 * M);
  CHECK(segment_variants("rhd:order=far", flat, 16 * M, space) ==
        V{"rhd:segment=1048576,order=far", "rhd:segment=4194304,order=far"});
  // ddl's slices (2 of 8 MB) start in dimension 1 (hd: halves, 4 MB) and 2 (ring of 4: 2 MB);
  // `ddl` alone runs on the machine grid (4x2, rings: 16 MB / 4).
  CHECK(largest_transfer("ddl:2x4:hd,ring:rings=2", flat, 16 * M) == 4 * M);
  CHECK(largest_transfer("ddl:2x4:ring,ring", flat, 16 * M) == 8 * M);
  CHECK(largest_transfer("ddl", grid, 16 * M) == 4 * M);
  CHECK(segment_variants("ddl:2x4:hd,ring:rings=2", flat, 16 * M, space) ==
        V{"ddl:2x4:hd,ring:rings=2,segment=262144", "ddl:2x4:hd,ring:rings=2,segment=1048576"});
  CHECK(segment_variants("ddl", grid, 64 * M, space) ==
        V{"ddl:segment=1048576", "ddl:segment=4194304"});
  // dbtree's chunks (and hier's) are bounded by the buffer only.
  CHECK(segment_variants("dbtree", flat, M, space) ==
        V{"dbtree:segment=65536", "dbtree:segment=262144"});
  // At 256 MB every size is below ring's 32 MB blocks: the two largest.
  CHECK(segment_variants("ring", flat, 256 * M, space) ==
        V{"ring:segment=1048576", "ring:segment=4194304"});
  // A candidate with a segment of its own, or no segment sizes to try: no variants.
  CHECK(segment_variants("ring:segment=65536", flat, 64 * M, space).empty());
  SearchSpace none = space;
  none.segments.clear();
  CHECK(segment_variants("ring", flat, 64 * M, none).empty());
  // Every variant parses to its canonical self.
  for (const std::string& v : segment_variants("ddl:2x4:hd,ring:rings=2", flat, 16 * M, space))
    CHECK(parse_algorithm_spec(v).to_string() == v);
}

TEST_CASE("confirmation: the best --confirm and those priced within 2 % of the last", "[planner]") {
  using P = std::vector<double>;
  CHECK(confirmed_count(P{1, 2, 3, 4}, 2) == 2);
  // 2.03 is within 2 % of the 2nd price (2), 2.05 is not (2 x 1.02 = 2.04).
  CHECK(confirmed_count(P{1, 2, 2, 2.03, 2.05, 2.05}, 2) == 4);
  // Ties with the best when confirm is 1; a chain of small steps does not creep past the band.
  CHECK(confirmed_count(P{5, 5, 5.09, 5.18, 5.27}, 1) == 3);
  // Fewer candidates than confirm: all of them; none: none.
  CHECK(confirmed_count(P{1, 2}, 3) == 2);
  CHECK(confirmed_count(P{}, 3) == 0);
  // At most 50 however many tie.
  CHECK(confirmed_count(P(80, 7.0), 3) == 50);
  CHECK(confirmed_count(P(80, 7.0), 50) == 50);
}

TEST_CASE("plan files round-trip and name what is wrong", "[planner][plan]") {
  const std::string path = "test_planner_plan.json";
  PlanFile f;
  f.platform = "platforms/s822lc_2.xml";
  f.dims = "4x2";
  f.plan = plan_from_choices(8, {8, 16, 32}, {"rhd", "rhd", "ddl:4x2:hd,hd:rings=2"});
  f.evidence.push_back({8, "rhd", 20.5, 20.0, "rhd", 20.5, 66, 3});
  write_plan_file(path, f);
  const PlanFile back = read_plan_file(path);
  CHECK(back.platform == f.platform);
  CHECK(back.dims == "4x2");
  CHECK(back.plan.ranks == 8);
  CHECK(back.plan.entries == f.plan.entries);
  CHECK(back.plan.collective == Collective::allreduce);
  // Another collective's plan names it; a file without the field (older) is allreduce's.
  f.plan = plan_from_choices(8, {8, 16}, {"alltoall_bruck", "alltoall_hier"}, Collective::alltoall);
  write_plan_file(path, f);
  CHECK(read_plan_file(path).plan.collective == Collective::alltoall);
  CHECK(read_plan_file(path).plan.entries == f.plan.entries);
  auto write = [&](const std::string& text) { std::ofstream(path) << text; };
  write(R"({"format": "ddl-plan", "version": 1, "platform": "p", "dims": "8", "ranks": 8,
            "entries": [{"min_bytes": 8, "max_bytes": 9, "algorithm": "rhd"}]})");
  CHECK(read_plan_file(path).plan.collective == Collective::allreduce);
  const std::string head = R"({"format": "ddl-plan", "version": 1, "platform": "p", "dims": "8", )";
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"{", "not JSON"},
      {R"({"format": "other", "version": 1})", "format is not 'ddl-plan'"},
      {R"({"format": "ddl-plan", "version": 2})", "version is not 1"},
      {head + R"("ranks": 8})", "missing field 'entries'"},
      {head + R"("ranks": -8, "entries": []})", "field 'ranks' has the wrong type"},
      {head + R"("ranks": 8, "entries": []})", "no entries"},
      {head + R"("ranks": 8, "entries": [{"min_bytes": 8, "algorithm": "rhd"}]})",
       "entries[0]: missing field 'max_bytes'"},
      {head + R"("ranks": 8, "entries": [{"min_bytes": 8, "max_bytes": 9, "algorithm": "rhd:x"}]})",
       "'x' is neither dims"},
      {head + R"("ranks": 8, "collective": "allscatter", "entries": []})",
       "unknown collective 'allscatter'"},
      {head +
           R"("ranks": 8, "collective": "alltoall", "entries": [{"min_bytes": 8, "max_bytes": 9, "algorithm": "rhd"}]})",
       "rhd"},
  };
  for (const auto& [text, why] : bad) {
    INFO(text);
    write(text);
    CHECK_THROWS_WITH(read_plan_file(path),
                      Catch::Contains("plan file '" + path + "'") && Catch::Contains(why));
  }
  std::remove(path.c_str());
  CHECK_THROWS_WITH(read_plan_file("no_such_plan.json"), Catch::Contains("no_such_plan.json"));
}
