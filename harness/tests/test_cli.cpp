#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "harness/cli.hpp"

namespace po = boost::program_options;
using namespace ddl::harness;
using ddl::Dims;

namespace {
CommonOptions parse(std::vector<const char*> args, const CommonDefaults& defaults = {}) {
  args.insert(args.begin(), "tool");
  po::options_description desc;
  add_common_options(desc, defaults);
  po::variables_map vm;
  po::store(po::parse_command_line(static_cast<int>(args.size()), args.data(), desc), vm);
  po::notify(vm);
  return read_common_options(vm);
}
}  // namespace

TEST_CASE("common flags have the tool's defaults", "[harness]") {
  const CommonOptions o = parse({});
  CHECK(o.sizes.front() == 8);
  CHECK(o.sizes.back() == 256u << 20);
  CHECK(o.dtype == ddl::DType::float32);
  CHECK(o.op == ddl::ReduceOp::sum);
  CHECK(o.iters == 1);
  CHECK(o.warmup == 0);
  CHECK_FALSE(o.check);
  CHECK(o.algos == std::vector<std::string>{"ddl"});
  CHECK_FALSE(o.dims.has_value());
  CHECK(o.format == Format::table);

  CommonDefaults real;
  real.iters = 20;
  real.warmup = 5;
  real.algo = "ring";
  const CommonOptions r = parse({}, real);
  CHECK(r.iters == 20);
  CHECK(r.warmup == 5);
  CHECK(r.algos == std::vector<std::string>{"ring"});
}

TEST_CASE("nccl-tests short flags", "[harness]") {
  const CommonOptions o = parse({"-b",   "1K",     "-e",       "4K",     "-f",  "4",        "-d",
                                 "half", "-o",     "max",      "-n",     "3",   "-w",       "2",
                                 "-c",   "--algo", "ring,ddl", "--dims", "2x4", "--format", "csv"});
  CHECK(o.sizes == std::vector<std::size_t>{1024, 4096});
  CHECK(o.dtype == ddl::DType::float16);
  CHECK(o.op == ddl::ReduceOp::max);
  CHECK(o.iters == 3);
  CHECK(o.warmup == 2);
  CHECK(o.check);
  CHECK(o.algos == std::vector<std::string>{"ring", "ddl"});
  CHECK(o.dims->to_string() == "2x4");
  CHECK(o.format == Format::csv);
}

TEST_CASE("coll picks the collective with its first algorithm or all of them and refuses others",
          "[harness]") {
  CHECK(parse({"--coll", "alltoall"}).algos == std::vector<std::string>{"alltoall_pairwise"});
  // Without --coll, the algorithms of any collective, as before.
  CHECK(parse({"--algo", "ring,alltoall_bruck"}).algos ==
        std::vector<std::string>{"ring", "alltoall_bruck"});
  CHECK(parse({"--coll", "alltoall", "--algo", "all"}).algos ==
        std::vector<std::string>{"alltoall_pairwise", "alltoall_linear", "alltoall_bruck",
                                 "alltoall_hier"});
  CHECK(parse({"--coll", "reducescatter"}).algos == std::vector<std::string>{"reduce_scatter"});
  CHECK(parse({"--coll", "allreduce"}).algos == std::vector<std::string>{"ddl"});
  CHECK(parse({"--coll", "gather", "-r", "3"}).root == 3);
  CHECK_THROWS_WITH(
      parse({"--coll", "alltoall", "--algo", "ring"}),
      "--algo ring performs allreduce, not --coll alltoall (its algorithms: "
      "alltoall_pairwise, alltoall_linear, alltoall_bruck, alltoall_hier, alltoall_auto)");
  // auto is the collective's own; --algo all leaves every auto out.
  CHECK(parse({"--coll", "alltoall", "--algo", "auto,alltoall_linear"}).algos ==
        std::vector<std::string>{"alltoall_auto", "alltoall_linear"});
  CHECK(parse({"--coll", "reducescatter", "--algo", "all"}).algos ==
        std::vector<std::string>{"reduce_scatter", "reduce_scatter_hd", "reduce_scatter_ddl",
                                 "reduce_scatter_hier"});
  CHECK(parse({"--coll", "allreduce", "--algo", "auto"}).algos == std::vector<std::string>{"auto"});
  CHECK_THROWS_WITH(parse({"--coll", "gather", "--algo", "auto"}),
                    Catch::Contains("--algo auto performs allreduce, not --coll gather"));
  CHECK_THROWS_WITH(parse({"--coll", "a2a"}),
                    Catch::Contains("unknown collective 'a2a' (known: allreduce, reduce_scatter"));
  CHECK_THROWS_WITH(parse({"-g", "2"}), Catch::StartsWith("-g 2: every rank drives one GPU"));
  CHECK_THROWS_WITH(parse({"-t", "4"}), Catch::StartsWith("-t 4: every rank drives one GPU"));
  CHECK(parse({"-g", "1", "-t", "1"}).algos == std::vector<std::string>{"ddl"});
  CHECK_THROWS_WITH(algorithm_options(parse({"-r", "8"}), Dims::flat(8)),
                    "-r 8: the root must be a rank, 0 to 7");
}

TEST_CASE("algo all lists every allreduce algorithm but auto", "[harness]") {
  const auto all = resolve_algorithms("all");
  CHECK(all.front() == "direct");
  CHECK(std::find(all.begin(), all.end(), "auto") == all.end());
  CHECK(std::find(all.begin(), all.end(), "ddl") != all.end());
  CHECK(std::find(all.begin(), all.end(), "reduce_scatter") == all.end());
}

TEST_CASE("algo all leaves out what the ranks cannot run and keeps named algorithms", "[harness]") {
  const CommonOptions all = parse({"--algo", "all"});
  CHECK(all.all_algorithms);
  const std::vector<std::string> in_switch = {"nvls", "sharp", "nvls_sharp"};
  const auto without = [&](std::vector<std::string> left_out) {
    std::vector<std::string> kept;
    for (const std::string& n : all.algos)
      if (std::find(left_out.begin(), left_out.end(), n) == left_out.end()) kept.push_back(n);
    return kept;
  };
  CHECK(runnable_algorithms(all, true) == without({"nvls", "sharp", "nvls_sharp", "native"}));
  CHECK(runnable_algorithms(all, false) ==
        without({"direct", "nvls", "sharp", "nvls_sharp", "native"}));
  // Switches that reduce (bits 1 << SwitchLevel): in the node only, then at both levels.
  CHECK(runnable_algorithms(all, false, 1) == without({"direct", "sharp", "nvls_sharp", "native"}));
  CHECK(runnable_algorithms(all, true, 3) == without({"native"}));
  // A backend with a library of its own (MPI) runs native too.
  CHECK(runnable_algorithms(all, true, 0, true) == without(in_switch));
  CHECK(runnable_algorithms(all, true, 3, true) == all.algos);
  const CommonOptions named = parse({"--algo", "direct,ring"});
  CHECK_FALSE(named.all_algorithms);
  CHECK(runnable_algorithms(named, false) == std::vector<std::string>{"direct", "ring"});
}

TEST_CASE("bad common flags are rejected naming the problem", "[harness]") {
  CHECK_THROWS_WITH(parse({"--algo", "nosuch"}), Catch::Contains("nosuch"));
  CHECK_THROWS_WITH(parse({"--algo", "ring,"}), Catch::Contains("empty algorithm name"));
  CHECK_THROWS_WITH(parse({"-b", "12Q"}), Catch::Contains("'12Q'"));
  CHECK_THROWS_WITH(parse({"-d", "float7"}), Catch::Contains("float7"));
  CHECK_THROWS_WITH(parse({"-n", "0"}), Catch::Contains("--iters"));
  CHECK_THROWS_WITH(parse({"-w", "-1"}), Catch::Contains("--warmup"));
  CHECK_THROWS_WITH(parse({"--format", "xml"}), Catch::Contains("'xml'"));
  CHECK_THROWS_WITH(parse({"--dims", "4x"}), Catch::Contains("'4x'"));
  CHECK_THROWS_WITH(parse({"--rings", "0"}), Catch::Contains("--rings"));
}

TEST_CASE("format nccl takes one algorithm and adds the out-of-place calls", "[harness]") {
  const CommonOptions o = parse({"--format", "nccl", "--algo", "ring,ring"});
  CHECK(o.format == Format::nccl);
  CHECK(sweep_cases(o, Dims::parse("8")).out_of_place_too);
  CHECK_FALSE(sweep_cases(parse({"--algo", "ring"}), Dims::parse("8")).out_of_place_too);
  CHECK_THROWS_WITH(parse({"--format", "nccl", "--algo", "ring,rhd"}),
                    Catch::Contains("--algo gives 2 (ring, rhd)") && Catch::Contains("one"));
  CHECK_THROWS_WITH(parse({"--format", "nccl", "--coll", "alltoall", "--algo", "all"}),
                    Catch::Contains("--format nccl"));
}

TEST_CASE("methods name one exchange per dimension of the grid", "[harness]") {
  const CommonOptions o = parse({"--methods", "ring,hd"});
  CHECK(o.methods ==
        std::vector<ddl::IntraMethod>{ddl::IntraMethod::ring, ddl::IntraMethod::halving_doubling});
  const ddl::Options opts = algorithm_options(o, ddl::Dims::parse("8x4"));
  CHECK(opts.methods == o.methods);
  CHECK(parse({}).methods.empty());
  CHECK(algorithm_options(parse({}), ddl::Dims::parse("8x4")).methods.empty());

  CHECK_THROWS_WITH(parse({"--methods", "ring,tree"}), Catch::Contains("unknown method 'tree'"));
  CHECK_THROWS_WITH(parse({"--methods", "ring,"}), Catch::Contains("unknown method ''"));
  CHECK_THROWS_WITH(
      algorithm_options(o, ddl::Dims::parse("4x2x2")),
      Catch::Contains("--methods gives 2 method(s) but dims '4x2x2' have 3 dimension(s)"));
}
