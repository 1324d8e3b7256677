// ddlplan: choose, per size, the allreduce (or, --coll, another collective's algorithm) to run
// on a platform, and write it as a plan file that `--algo auto --plan FILE` uses in ddlsim and
// ddlrun (with that --coll). The search is the planner's stages
// (planner/search.hpp), called here in order: every base candidate (planner/candidates.hpp: the
// registry's allreduces, grids up to --max-dims dims) priced by the contention-aware model at
// four anchor sizes; the best --keep at any anchor, with their variants (rings 2, far-first),
// priced at every size; the best --confirm per size (and those priced within 2 % of the last)
// simulated; the best kSegmentBases simulated per size simulated again with each --segments
// size below their largest transfer; the fastest simulated wins. Under mpirun the simulations
// are shared out over the ranks (tools/ddlplan/spread.hpp).
// With --workload it plans an LLM's parallel layout instead (tools/ddlplan/llm_plan.hpp).
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "harness/sizes.hpp"
#include "planner/search.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/route_topology.hpp"
#include "tools/ddlplan/llm_plan.hpp"
#include "tools/ddlplan/spread.hpp"
#include "tools/sim_ranks/sweep_mpi.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

using Clock = std::chrono::steady_clock;

// "64K,256K,1M" -> sizes; "none" -> no segment search.
std::vector<std::size_t> parse_segments(const std::string& text) {
  std::vector<std::size_t> out;
  if (text == "none") return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    if (item.empty())
      throw InvalidArgument("--segments '" + text +
                            "': an empty size (give sizes as 64K,1M or none)");
    const std::size_t bytes = harness::parse_size(item);
    if (bytes == 0) throw InvalidArgument("--segments '" + text + "': a segment of 0 bytes");
    out.push_back(bytes);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

struct Progress {
  Clock::time_point start = Clock::now();
  bool speaks = true;  // rank 0 of several speaks for all
  void operator()(const std::string& what) const {
    if (!speaks) return;
    std::cerr << "ddlplan: " << what << " ("
              << std::chrono::duration<double>(Clock::now() - start).count() << " s)\n";
  }
};

// Simulations at once: the CPUs, shared by the ranks mpirun put on this node.
int default_jobs() {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long ranks_here = local ? std::strtol(local, nullptr, 10) : 1;
  return static_cast<int>(std::max(1L, static_cast<long>(cpus) / std::max(1L, ranks_here)));
}

void print_help(std::ostream& out, const po::options_description& desc) {
  out << "Usage: ddlplan --platform FILE --out PLAN.json [options]\n"
         "       ddlplan --workload MODEL --gpus N --platform FILE --global-batch B [options]\n\n"
         "Searches algorithm x dims x per-dimension method x rings x halving-doubling order for\n"
         "each size, prunes with the contention-aware cost model, confirms the best by\n"
         "simulation, simulates the best two again with each --segments size, and writes the\n"
         "plan (size ranges -> algorithm string) as JSON.\n"
         "With --workload: searches an LLM's tp x pp x dp (x ep) layouts, micro-batch counts and\n"
         "ZeRO stages that fit GPU memory, predicts each one's step on the platform, prints the\n"
         "best --top by step time and writes them all as CSV (--out).\n\n"
      << desc
      << "\nExamples:\n"
         "  ddlplan --platform platforms/s822lc_64.xml -b 8 -e 256M --out s822lc_64.plan.json\n"
         "  ddlsim --platform platforms/s822lc_64.xml --algo auto --plan s822lc_64.plan.json\n"
         "  ddlplan --platform platforms/dgx_h100_4.xml --coll alltoall -b 1K -e 64M --out "
         "a2a.json\n"
         "  ddlsim --platform platforms/dgx_h100_4.xml --coll alltoall --algo auto --plan "
         "a2a.json\n"
         "  ddlplan --workload llama2_70b --gpus 512 --platform platforms/dgx_h100_rail_64.xml "
         "--global-batch 1024 --out llama2_70b_512.csv\n";
}

int run(int argc, char** argv, sim::SweepRanks& ranks) {
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
      ("help,h", "this help")
      ("platform", po::value<std::string>(), "SimGrid platform file (required)")
      ("out", po::value<std::string>(), "plan file to write (required unless --list; with --workload: the ranking as CSV, optional)")
      ("coll", po::value<std::string>()->default_value("allreduce"), "the collective to plan: allreduce|reducescatter|allgather|alltoall|broadcast|reduce|gather|scatter|sendrecv (its auto reads the plan)")
      ("list", "print the search space (one algorithm string a line; not the segment sizes, tried per size) and exit")
      ("dims", po::value<std::string>(), "the machine grid (default: the platform's)")
      ("minbytes,b", po::value<std::string>()->default_value("8"), "smallest size")
      ("maxbytes,e", po::value<std::string>()->default_value("256M"), "largest size")
      ("stepfactor,f", po::value<std::string>()->default_value("2"), "size factor between sizes")
      ("max-dims", po::value<std::string>()->default_value("4"), "ddl grids of at most this many dims (1..4)")
      ("keep", po::value<std::string>()->default_value("12"), "candidates kept per anchor size by the model")
      ("confirm", po::value<std::string>()->default_value("3"), "candidates simulated per size (1..50), with those priced within 2 % of the last (50 at most)")
      ("segments", po::value<std::string>()->default_value("64K,256K,1M,4M"), "segment sizes simulated on the best 2 simulated per size (below their largest transfer), or none")
      ("jobs", po::value<std::string>(), "simulations at once (default: the CPUs; under mpirun, per rank: the CPUs over the node's ranks)")
      ("timeout", po::value<std::string>()->default_value("600"), "seconds per size's simulation (with --workload: per layout's)");
  // clang-format on
  planner::add_llm_plan_options(desc);
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlplan");
  if (vm.count("help")) {
    print_help(std::cout, desc);
    return 0;
  }
  planner::check_llm_plan_flags(vm);
  const int jobs =
      vm.count("jobs")
          ? static_cast<int>(harness::parse_integer(vm["jobs"].as<std::string>(), "jobs", 1, 256))
          : default_jobs();
  const auto timeout = static_cast<unsigned>(
      harness::parse_integer(vm["timeout"].as<std::string>(), "timeout", 1, 86400));
  if (planner::llm_plan_requested(vm))
    return planner::run_llm_plan(vm, argv[0], ranks, jobs, timeout);
  const Collective collective = parse_collective(vm["coll"].as<std::string>());
  const bool list = vm.count("list") != 0;
  if (list && vm.count("out")) throw InvalidArgument("--list writes no plan: drop --out");
  for (const char* f : {"platform", "out"})
    if (!vm.count(f) && !(list && std::string(f) == "out"))
      throw InvalidArgument(std::string("--") + f + " is required (see ddlplan --help)");
  const std::string platform_file = harness::resolve_data_path(vm["platform"].as<std::string>());
  const std::string out_file = list ? std::string() : vm["out"].as<std::string>();
  if (!list) {
    check_distinct_files({platform_file}, {out_file});
    check_writable(out_file);
  }
  const std::vector<std::size_t> sizes =
      harness::size_sweep(harness::parse_size(vm["minbytes"].as<std::string>()),
                          harness::parse_size(vm["maxbytes"].as<std::string>()),
                          static_cast<std::size_t>(harness::parse_integer(
                              vm["stepfactor"].as<std::string>(), "stepfactor", 2, 1 << 20)));
  SearchSpace space;
  space.max_dims =
      static_cast<int>(harness::parse_integer(vm["max-dims"].as<std::string>(), "max-dims", 1, 4));
  space.segments = parse_segments(vm["segments"].as<std::string>());
  const auto keep = static_cast<std::size_t>(
      harness::parse_integer(vm["keep"].as<std::string>(), "keep", 1, 1000));
  const auto confirm = static_cast<std::size_t>(
      harness::parse_integer(vm["confirm"].as<std::string>(), "confirm", 1, 50));

  Progress progress;
  progress.speaks = ranks.root();
  simgrid::s4u::Engine& engine = sim::start_engine(argv[0]);
  const sim::Platform platform = sim::load_platform(engine, platform_file);
  std::optional<Dims> requested;
  if (vm.count("dims")) requested = Dims::parse(vm["dims"].as<std::string>());
  const Dims dims = sim::choose_dims(platform, requested);
  const int p = platform.ranks();
  if (dims.count() >= 2) space.channels = {dims.extent(0)};  // a channel per GPU of a node
  Options options;  // what every candidate is simulated with
  options.dims = dims;
  options.cost = sim::platform_costs(platform, dims);
  if (list) {
    // The space the search covers, variants included: what an exhaustive evaluation simulates.
    if (ranks.root())
      for (const std::string& a : candidate_algorithms(p, space, collective))
        std::cout << a << "\n";
    return 0;
  }
  const sim::RouteTopology topology(platform);
  // The base space (rings 1, near-first, unchunked) is priced at the anchors; ring counts,
  // far-first and chunks only for the base candidates that make the shortlist.
  SearchSpace base = space;
  base.rings = {1};
  base.both_orders = false;
  base.chunks = {};
  const std::vector<std::string> candidates = candidate_algorithms(p, base, collective);
  progress(platform.file + ": " + std::to_string(p) + " ranks, grid " + dims.to_string() + ", " +
           std::string(to_string(collective)) + ", " + std::to_string(candidates.size()) +
           " candidates, " + std::to_string(sizes.size()) + " sizes");
  planner::Pricing pricing = planner::platform_pricing(platform, topology, dims, sizes, jobs);
  pricing.collective = collective;
  const std::set<std::string> shortlist = planner::shortlist(
      pricing, candidates, planner::anchor_sizes(sizes), keep, space, [&](std::size_t bytes) {
        progress("model: " + std::to_string(candidates.size()) + " candidates at " +
                 harness::format_size(bytes));
      });
  std::vector<planner::SizeTrial> trials =
      planner::confirmation_trials(pricing, shortlist, sizes, confirm);
  progress("model: " + std::to_string(shortlist.size()) + " shortlisted at every size");
  // A rank's share takes at most its sizes' timeouts, one after another.
  const std::string share = ranks.size() > 1 ? " of rank 0's" : "";
  auto simulator = [&](const std::string& what) -> planner::Simulator {
    return [&, what](const std::vector<planner::SimulationJob>& sim_jobs) {
      ranks.set_timeout(static_cast<double>(timeout) *
                        static_cast<double>(sim_jobs.size() / ranks.size() + 1));
      return planner::simulate_spread(
          ranks, platform, options, sim_jobs, jobs, timeout,
          [&](std::size_t done, std::size_t total) {
            progress(what + std::to_string(done) + "/" + std::to_string(total) + share + " sizes");
          });
    };
  };
  planner::simulate_pending(trials, simulator("simulated "));
  const std::size_t variants = planner::add_segment_variants(trials, pricing, space);
  if (variants > 0) {
    progress("segments: " + std::to_string(variants) + " segmented variants at " +
             std::to_string(planner::pending_jobs(trials).size()) + " sizes");
    planner::simulate_pending(trials, simulator("simulated segments at "));
  }
  PlanFile file = planner::choose_plan(trials, p, candidates.size(), collective);
  file.platform = platform.file;
  file.dims = dims.to_string();
  if (!ranks.root()) return 0;
  write_plan_file(out_file, file);
  progress("wrote " + out_file + " (" + std::to_string(file.plan.entries.size()) + " entries)");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<sim::SweepRanks> ranks;  // several under mpirun (tools/sim_ranks/sweep_mpi.hpp)
  try {
    ranks.emplace(argc, argv);
    const int rc = run(argc, argv, *ranks);
    finish_stdout();  // a list or table cut short by a full disk must not end in status 0
    return rc;
  } catch (const Timeout& e) {
    // The rank that did not answer would keep MPI_Finalize waiting too: end the job.
    std::cerr << "ddlplan: " << e.what() << "\n";
    ranks->abort(1);
  } catch (const std::exception& e) {
    // Every rank parses the same flags and prices the same candidates, and a failed share
    // reaches every rank with the times (allgather_values): rank 0 speaks for all.
    if (!ranks || ranks->root()) std::cerr << "ddlplan: " << e.what() << "\n";
    return 1;
  }
}
