// ddlplan: choose, per size, the allreduce to run on a platform, and write it as a plan file
// that `--algo auto --plan FILE` uses in ddlsim and ddlrun.
//
// Search: every base candidate (candidates.hpp: ring, rhd, rd, dbtree, hier, ddl over every
// factorization into up to --max-dims dims x per-dimension method) is priced by the
// contention-aware model (algorithms/schedule_cost.hpp over the platform's routes) at four
// anchor sizes; the best --keep at any anchor, with their variants (rings 2, far-first), are
// priced at every size; the best --confirm per size (and those priced within 2 % of the last,
// candidates.hpp) are simulated; then the best kSegmentBases simulated per size are simulated
// again with each --segments size below their largest transfer (the model does not see the
// executor's segments); the fastest simulated wins.
//
// Under mpirun (`mpirun -np N ddlplan ...`) every rank prices the same candidates (pricing is
// deterministic) and simulates its share of each stage's sizes (size k on rank k mod N, with
// its own --jobs children); the times are exchanged so every rank goes on with all of them, and
// rank 0 reports progress and writes the plan: the same file as one process writes.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <thread>

#include "algorithms/cost_model.hpp"
#include "algorithms/error.hpp"
#include "harness/arguments.hpp"
#include "harness/data_dir.hpp"
#include "harness/output_file.hpp"
#include "harness/sizes.hpp"
#include "planner/candidates.hpp"
#include "planner/plan_file.hpp"
#include "planner/simulate.hpp"
#include "sim/platform.hpp"
#include "sim/platform_costs.hpp"
#include "sim/route_topology.hpp"
#include "tools/sim_ranks/sweep_mpi.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

using Clock = std::chrono::steady_clock;

// Simulated times this close count as a tie (the simulation is deterministic: no noise).
constexpr double kTie = 0.001;
// Per size, the fastest simulated candidates whose segmented variants are simulated too.
constexpr std::size_t kSegmentBases = 2;

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

// Simulates this rank's share of `jobs` (job k on rank k mod N) and returns every job's times,
// from all ranks. `done` counts this rank's share.
std::vector<std::vector<double>> simulate_spread(
    const sim::SweepRanks& ranks, const sim::Platform& platform, const Options& options,
    const std::vector<planner::SimulationJob>& jobs, int parallel, unsigned timeout_s,
    const std::function<void(std::size_t, std::size_t)>& done) {
  // One process: its own errors as simulate_jobs throws them, no "rank 0:" in front.
  if (ranks.size() == 1)
    return planner::simulate_jobs(platform, options, jobs, parallel, timeout_s, done);
  const auto n = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::vector<planner::SimulationJob> mine;
  for (std::size_t k = me; k < jobs.size(); k += n) mine.push_back(jobs[k]);
  std::vector<double> flat;
  std::string error;
  try {
    for (const std::vector<double>& t :
         planner::simulate_jobs(platform, options, mine, parallel, timeout_s, done))
      flat.insert(flat.end(), t.begin(), t.end());
  } catch (const std::exception& e) {
    error = e.what();
  }
  const std::vector<std::vector<double>> shares =
      sim::allgather_values(ranks, flat, error.empty() ? nullptr : &error);
  std::vector<std::vector<double>> times(jobs.size());
  std::vector<std::size_t> used(n, 0);
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const std::vector<double>& share = shares[k % n];
    std::size_t& at = used[k % n];
    const std::size_t count = jobs[k].algorithms.size();
    if (at + count > share.size())
      throw BackendError("rank " + std::to_string(k % n) + " sent too few simulated times");
    times[k].assign(share.begin() + static_cast<std::ptrdiff_t>(at),
                    share.begin() + static_cast<std::ptrdiff_t>(at + count));
    at += count;
  }
  return times;
}

// Simulations at once: the CPUs, shared by the ranks mpirun put on this node.
int default_jobs() {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const long ranks_here = local ? std::strtol(local, nullptr, 10) : 1;
  return static_cast<int>(std::max(1L, static_cast<long>(cpus) / std::max(1L, ranks_here)));
}

void print_help(std::ostream& out, const po::options_description& desc) {
  out << "Usage: ddlplan --platform FILE --out PLAN.json [options]\n\n"
         "Searches algorithm x dims x per-dimension method x rings x halving-doubling order for\n"
         "each size, prunes with the contention-aware cost model, confirms the best by\n"
         "simulation, simulates the best two again with each --segments size, and writes the\n"
         "plan (size ranges -> algorithm string) as JSON.\n\n"
      << desc
      << "\nExamples:\n"
         "  ddlplan --platform platforms/s822lc_64.xml -b 8 -e 256M --out s822lc_64.plan.json\n"
         "  ddlsim --platform platforms/s822lc_64.xml --algo auto --plan s822lc_64.plan.json\n";
}

int run(int argc, char** argv, sim::SweepRanks& ranks) {
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
      ("help,h", "this help")
      ("platform", po::value<std::string>(), "SimGrid platform file (required)")
      ("out", po::value<std::string>(), "plan file to write (required unless --list)")
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
      ("timeout", po::value<std::string>()->default_value("600"), "seconds per size's simulation");
  // clang-format on
  const po::variables_map vm = harness::parse_arguments(argc, argv, desc, "ddlplan");
  if (vm.count("help")) {
    print_help(std::cout, desc);
    return 0;
  }
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
  const int jobs =
      vm.count("jobs")
          ? static_cast<int>(harness::parse_integer(vm["jobs"].as<std::string>(), "jobs", 1, 256))
          : default_jobs();
  const auto timeout = static_cast<unsigned>(
      harness::parse_integer(vm["timeout"].as<std::string>(), "timeout", 1, 86400));

  Progress progress;
  progress.speaks = ranks.root();
  simgrid::s4u::Engine& engine = sim::start_engine(argv[0]);
  const sim::Platform platform = sim::load_platform(engine, platform_file);
  std::optional<Dims> requested;
  if (vm.count("dims")) requested = Dims::parse(vm["dims"].as<std::string>());
  const Dims dims = sim::choose_dims(platform, requested);
  const int p = platform.ranks();
  Options options;
  options.dims = dims;
  options.cost = sim::platform_costs(platform, dims);
  if (list) {
    // The space the search covers, variants included: what an exhaustive evaluation simulates.
    if (ranks.root())
      for (const std::string& a : candidate_algorithms(p, space)) std::cout << a << "\n";
    return 0;
  }
  const sim::RouteTopology topology(platform);
  // The base space (rings 1, near-first) is priced at the anchors; ring counts and far-first
  // only for the base candidates that make the shortlist.
  SearchSpace base = space;
  base.rings = {1};
  base.both_orders = false;
  const std::vector<std::string> candidates = candidate_algorithms(p, base);
  progress(platform.file + ": " + std::to_string(p) + " ranks, grid " + dims.to_string() + ", " +
           std::to_string(candidates.size()) + " candidates, " + std::to_string(sizes.size()) +
           " sizes");

  // Pricing is pure once every route is known: candidates are priced by `jobs` threads.
  topology.prefetch();
  std::map<std::size_t, CostParams> params;
  for (const std::size_t bytes : sizes)
    params.emplace(bytes, sim::platform_costs(platform, dims, static_cast<double>(bytes)));
  auto price_all = [&](const std::vector<std::string>& algos, std::size_t bytes) {
    std::vector<std::pair<double, std::string>> priced(algos.size());
    std::atomic<std::size_t> next{0};
    std::exception_ptr error;
    std::mutex error_lock;
    auto work = [&] {
      try {
        for (std::size_t i; (i = next++) < algos.size();)
          priced[i] = {model_time(algos[i], dims, params.at(bytes), bytes, options, &topology),
                       algos[i]};
      } catch (...) {
        const std::lock_guard<std::mutex> guard(error_lock);
        if (!error) error = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < jobs; ++t) threads.emplace_back(work);
    work();
    for (std::thread& t : threads) t.join();
    if (error) std::rethrow_exception(error);
    std::sort(priced.begin(), priced.end());
    return priced;
  };
  auto price = [&](const std::string& algo, std::size_t bytes) {
    return model_time(algo, dims, params.at(bytes), bytes, options, &topology);
  };
  // Stage 1: every base candidate at four anchor sizes spread over the range (the rankings at
  // neighbouring sizes differ little: latency-bound at one end, bandwidth-bound at the other).
  std::set<std::size_t> anchor_set;
  for (std::size_t k = 0; k < 4; ++k) anchor_set.insert(sizes[k * (sizes.size() - 1) / 3]);
  const std::vector<std::size_t> anchors(anchor_set.begin(), anchor_set.end());
  std::set<std::string> shortlist = {"ring", "rhd", "dbtree", "hier", "ddl"};
  for (const std::size_t bytes : anchors) {
    const auto priced = price_all(candidates, bytes);
    for (std::size_t i = 0; i < std::min(keep, priced.size()); ++i) {
      shortlist.insert(priced[i].second);
      for (const std::string& v : candidate_variants(priced[i].second, space)) shortlist.insert(v);
    }
    progress("model: " + std::to_string(candidates.size()) + " candidates at " +
             harness::format_size(bytes));
  }
  // Stage 2: the shortlist at every size; the best `confirm` per size go to simulation, with
  // the plain α-β-γ argmin over the registered algorithms (for the evidence).
  std::vector<planner::SimulationJob> sim_jobs;
  std::vector<std::vector<double>> model_us;
  std::vector<std::string> alpha_beta;
  for (const std::size_t bytes : sizes) {
    const auto priced =
        price_all(std::vector<std::string>(shortlist.begin(), shortlist.end()), bytes);
    planner::SimulationJob job{bytes, {}};
    std::vector<double> models;
    std::vector<double> prices;
    for (const auto& [price, algo] : priced) prices.push_back(price);
    const std::size_t n = confirmed_count(prices, confirm);
    for (std::size_t i = 0; i < n; ++i) {
      job.algorithms.push_back(priced[i].second);
      models.push_back(priced[i].first * 1e6);
    }
    const std::string plain = best_allreduce(dims, params.at(bytes), bytes, options);
    alpha_beta.push_back(plain);
    if (std::find(job.algorithms.begin(), job.algorithms.end(), plain) == job.algorithms.end()) {
      job.algorithms.push_back(plain);
      models.push_back(price(plain, bytes) * 1e6);
    }
    sim_jobs.push_back(std::move(job));
    model_us.push_back(std::move(models));
  }
  progress("model: " + std::to_string(shortlist.size()) + " shortlisted at every size");
  // Stage 3: simulate. A rank's share takes at most its sizes' timeouts, one after another.
  auto bound = [&](std::size_t count) {
    return static_cast<double>(timeout) * static_cast<double>(count / ranks.size() + 1);
  };
  const std::string share = ranks.size() > 1 ? " of rank 0's" : "";
  ranks.set_timeout(bound(sim_jobs.size()));
  auto times = simulate_spread(ranks, platform, options, sim_jobs, jobs, timeout,
                               [&](std::size_t done, std::size_t total) {
                                 progress("simulated " + std::to_string(done) + "/" +
                                          std::to_string(total) + share + " sizes");
                               });
  // Stage 4: the segmented variants of each size's fastest kSegmentBases, simulated.
  std::vector<planner::SimulationJob> segment_jobs;
  std::vector<std::size_t> segment_size_index;
  std::size_t variants = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto& algos = sim_jobs[i].algorithms;
    std::vector<std::size_t> order(algos.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return times[i][x] < times[i][y]; });
    planner::SimulationJob job{sizes[i], {}};
    for (std::size_t k = 0; k < std::min(kSegmentBases, order.size()); ++k)
      for (const std::string& v : segment_variants(algos[order[k]], dims, sizes[i], space))
        if (std::find(algos.begin(), algos.end(), v) == algos.end()) job.algorithms.push_back(v);
    if (job.algorithms.empty()) continue;
    variants += job.algorithms.size();
    segment_jobs.push_back(std::move(job));
    segment_size_index.push_back(i);
  }
  if (!segment_jobs.empty()) {
    progress("segments: " + std::to_string(variants) + " segmented variants at " +
             std::to_string(segment_jobs.size()) + " sizes");
    ranks.set_timeout(bound(segment_jobs.size()));
    const auto segment_times =
        simulate_spread(ranks, platform, options, segment_jobs, jobs, timeout,
                        [&](std::size_t done, std::size_t total) {
                          progress("simulated segments at " + std::to_string(done) + "/" +
                                   std::to_string(total) + share + " sizes");
                        });
    for (std::size_t j = 0; j < segment_jobs.size(); ++j) {
      const std::size_t i = segment_size_index[j];
      for (std::size_t k = 0; k < segment_jobs[j].algorithms.size(); ++k) {
        const std::string& v = segment_jobs[j].algorithms[k];
        sim_jobs[i].algorithms.push_back(v);
        times[i].push_back(segment_times[j][k]);
        model_us[i].push_back(price(v, sizes[i]) * 1e6);
      }
    }
  }
  PlanFile file;
  file.platform = platform.file;
  file.dims = dims.to_string();
  std::vector<std::string> choices;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::vector<double>& t = times[i];
    const auto& algos = sim_jobs[i].algorithms;
    // Within kTie of the fastest, the shortest string wins: at latency-bound sizes many grids
    // tie with rhd, and a plan that flips between equals at every size reads worse.
    const double fastest = *std::min_element(t.begin(), t.end());
    std::size_t best = 0;
    bool found = false;
    for (std::size_t k = 0; k < t.size(); ++k) {
      if (t[k] > fastest * (1 + kTie)) continue;
      if (!found || algos[k].size() < algos[best].size() ||
          (algos[k].size() == algos[best].size() && algos[k] < algos[best]))
        best = k;
      found = true;
    }
    const std::size_t ab = static_cast<std::size_t>(
        std::find(algos.begin(), algos.end(), alpha_beta[i]) - algos.begin());
    choices.push_back(algos[best]);
    file.evidence.push_back({sizes[i], algos[best], t[best] * 1e6, model_us[i][best], alpha_beta[i],
                             t[ab] * 1e6, candidates.size(), algos.size()});
  }
  file.plan = plan_from_choices(p, sizes, choices);
  file.plan.validate();
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
