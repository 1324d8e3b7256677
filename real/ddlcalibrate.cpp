// ddlcalibrate: measure this machine as ddlrun's ranks see it and write a SimGrid platform of
// it (plus a JSON report) that ddlsim loads. Run with mpirun on the ranks to be predicted:
//   mpirun -np 4 ddlcalibrate --output calibrated_4.xml
// Measures, over message sizes: ping-pong (rank 0 <-> 1), bidirectional exchange (0 <-> 1),
// concurrent pairs and ring steps (every rank at once); and local reduce / copy throughput per
// dtype, alone and on every rank at once, and float reduce over sizes (the platform's memory
// factors). See calibrate_platform.hpp for the model.
#include <mpi.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"
#include "real/calibrate_fit.hpp"
#include "real/calibrate_measure.hpp"
#include "real/calibrate_platform.hpp"
#include "real/mpi_error.hpp"

namespace po = boost::program_options;
using namespace ddl;
using namespace ddl::calibrate;
using json = nlohmann::ordered_json;

namespace {

struct Args {
  std::string output, report;
  std::vector<std::size_t> sizes;
  int reps = 15;
  std::size_t reduce_bytes = 0;
  double tolerance = 0.03;
};

Args parse(int argc, char** argv, bool& help) {
  po::options_description desc("Options");
  desc.add_options()("help,h", "this help")
      ("output", po::value<std::string>(), "platform file to write (SimGrid XML)")
      ("report", po::value<std::string>(), "JSON report to write (default: the platform file with .json)")
      ("reps", po::value<int>()->default_value(15), "repetitions per measurement (the median is used)")
      ("minbytes,b", po::value<std::string>()->default_value("8"), "smallest message size")
      ("maxbytes,e", po::value<std::string>()->default_value("64M"), "largest message size")
      ("stepfactor,f", po::value<std::string>()->default_value("2"), "size multiplier between sizes")
      ("reduce-bytes", po::value<std::string>()->default_value("4M"), "buffer size of the reduce/copy timings")
      ("fit-tolerance", po::value<double>()->default_value(0.03, "0.03"),
       "largest relative misfit of one latency/bandwidth pair before a new size range starts");
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw InvalidArgument(std::string(e.what()) + " (see ddlcalibrate --help)");
  }
  Args a;
  help = vm.count("help") > 0;
  if (help) {
    std::cout << "Usage: mpirun -np P ddlcalibrate --output PLATFORM.xml [options]\n\n"
                 "Measures message latency and bandwidth over sizes (ping-pong, bidirectional, concurrent\n"
                 "pairs, ring steps) through the same communicator ddlrun uses, and local reduce/copy\n"
                 "throughput per dtype, then writes a P-host SimGrid platform of this machine for ddlsim\n"
                 "and a JSON report (medians, quartiles, fit and residuals).\n\n"
              << desc << "\nExample:\n  mpirun -np 2 ddlcalibrate --output calibrated_2.xml -b 8 -e 64M --reps 20\n";
    return a;
  }
  if (!vm.count("output")) throw InvalidArgument("--output PLATFORM.xml is required (see ddlcalibrate --help)");
  a.output = vm["output"].as<std::string>();
  a.report = vm.count("report") ? vm["report"].as<std::string>()
                                : a.output.substr(0, a.output.rfind(".xml")) + ".json";
  a.reps = vm["reps"].as<int>();
  if (a.reps < 3) throw InvalidArgument("--reps must be at least 3 (a median and quartiles need them)");
  const std::size_t factor = harness::parse_size(vm["stepfactor"].as<std::string>());
  a.sizes = harness::size_sweep(harness::parse_size(vm["minbytes"].as<std::string>()),
                                harness::parse_size(vm["maxbytes"].as<std::string>()), factor);
  if (a.sizes.size() < 2) throw InvalidArgument("calibration needs at least 2 message sizes (-b < -e)");
  a.reduce_bytes = harness::parse_size(vm["reduce-bytes"].as<std::string>());
  if (a.reduce_bytes < 4096) throw InvalidArgument("--reduce-bytes must be at least 4K");
  a.tolerance = vm["fit-tolerance"].as<double>();
  if (!(a.tolerance > 0 && a.tolerance < 1)) throw InvalidArgument("--fit-tolerance must be in (0, 1)");
  return a;
}

json spread_json(const Spread& s) {
  return {{"median_s", s.median}, {"min_s", s.min}, {"q1_s", s.q1}, {"q3_s", s.q3}, {"max_s", s.max},
          {"iqr_pct", s.iqr_pct()}};
}

// Per-dtype throughput of a local operation, in result bytes per second (median of reps).
json local_json(std::size_t bytes, const Spread& alone, const Spread& all) {
  return {{"bytes", bytes}, {"alone_Bps", bytes / alone.median}, {"all_ranks_Bps", bytes / all.median},
          {"alone", spread_json(alone)}, {"all_ranks", spread_json(all)}};
}

int run(int argc, char** argv) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Args args;
  bool help = false;
  try {
    args = parse(argc, argv, help);
    if (!help && size < 2) throw InvalidArgument("run on at least 2 ranks (mpirun -np 2 or more)");
  } catch (const Error& e) {
    if (rank == 0) std::cerr << "ddlcalibrate: " << e.what() << "\n";
    return 2;
  }
  if (help) return 0;
  MpiCommunicator comm(MPI_COMM_WORLD, 120);

  json report;
  report["ranks"] = size;
  report["reps"] = args.reps;
  report["fit_tolerance_pct"] = 100 * args.tolerance;
  // Messages: one flow alone, then the contended patterns.
  std::vector<Point> lone;
  std::vector<ContendedPoint> contended;
  std::vector<std::pair<Pattern, ContendedPoint>> kinds = {{Pattern::bidirectional, {0, 0, 2, 1}}};
  if (size >= 4) kinds.push_back({Pattern::pairs, {0, 0, size / 2 * 2, 1}});
  if (size >= 3) kinds.push_back({Pattern::ring, {0, 0, size, 1}});
  json messages = json::array();
  for (std::size_t bytes : args.sizes) {
    json row = {{"bytes", bytes}};
    const Spread pp = summarize(time_pattern(comm, Pattern::pingpong, bytes, args.reps));
    row["pingpong"] = spread_json(pp);
    lone.push_back({static_cast<double>(bytes), pp.median});
    for (auto [pattern, shape] : kinds) {
      const Spread s = summarize(time_pattern(comm, pattern, bytes, args.reps));
      row[to_string(pattern)] = spread_json(s);
      row[to_string(pattern)]["flows"] = shape.flows;
      row[to_string(pattern)]["flows_per_host"] = shape.flows_per_host;
      contended.push_back({static_cast<double>(bytes), s.median, shape.flows, shape.flows_per_host});
    }
    messages.push_back(row);
    if (rank == 0) std::cerr << "ddlcalibrate: " << harness::format_size(bytes) << " one-way " << pp.median * 1e6 << " us\n";
  }

  // Local work: every dtype at --reduce-bytes; float at a few sizes to show the caches' effect.
  json reduce = json::object(), reduce_sizes = json::array();
  for (DType t : all_dtypes()) {
    const Spread alone = summarize(time_reduce(comm, t, args.reduce_bytes, args.reps, false));
    const Spread all = summarize(time_reduce(comm, t, args.reduce_bytes, args.reps, true));
    reduce[std::string(to_string(t))] = local_json(args.reduce_bytes, alone, all);
  }
  // Float over a size sweep (4K to the largest message, doubling: the reduces a collective does
  // are message-sized): the caches make throughput depend on size, which the platform carries as
  // ddl_memory_factors.
  const std::vector<std::size_t> local_sizes =
      harness::size_sweep(4096, std::max<std::size_t>(args.sizes.back(), 8192), 2);
  std::vector<double> all_ranks_Bps;
  for (std::size_t bytes : local_sizes) {
    const Spread alone = summarize(time_reduce(comm, DType::float32, bytes, args.reps, false));
    const Spread all = summarize(time_reduce(comm, DType::float32, bytes, args.reps, true));
    reduce_sizes.push_back(local_json(bytes, alone, all));
    all_ranks_Bps.push_back(bytes / all.median);
  }
  const Spread copy_alone = summarize(time_copy(comm, args.reduce_bytes, args.reps, false));
  const Spread copy_all = summarize(time_copy(comm, args.reduce_bytes, args.reps, true));

  // The simulator charges a reduce of n bytes 3n / memory_bandwidth: float's throughput with
  // every rank reducing at once (as in a collective's steps) gives the one number it can carry.
  const double float_all = reduce["float"]["all_ranks_Bps"].get<double>();
  const double memory_bandwidth = 3 * float_all;
  const std::vector<Segment> fit = fit_piecewise(lone, args.tolerance);
  PlatformModel model = model_from_pingpong(size, fit, lone.back().bytes, memory_bandwidth);
  // Each swept size's throughput relative to float_all, as the median of it and its two
  // neighbours in size (at either end of the sweep, the lower of it and its one neighbour): on an oversubscribed machine one size now and then catches a descheduled
  // rank (a single point 3x off between normal ones), while cache effects span several sizes.
  // The smallest size's factor also covers everything below it (threshold 0).
  for (std::size_t i = 0; i < local_sizes.size(); ++i) {
    std::vector<double> near(all_ranks_Bps.begin() + static_cast<std::ptrdiff_t>(i ? i - 1 : i),
                             all_ranks_Bps.begin() + static_cast<std::ptrdiff_t>(std::min(i + 2, local_sizes.size())));
    std::sort(near.begin(), near.end());
    const double factor = near[(near.size() - 1) / 2] / float_all;
    reduce_sizes[i]["memory_factor"] = factor;
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", factor);
    model.memory_factors += (i ? ";" + std::to_string(local_sizes[i]) : std::string("0")) + ":" + text;
  }
  choose_capacities(model, contended);

  json segments = json::array();
  for (const Segment& s : fit)
    segments.push_back({{"from_bytes", s.from_bytes}, {"latency_s", s.latency_s}, {"bandwidth_Bps", s.bandwidth()}});
  std::vector<double> residuals;
  for (std::size_t i = 0; i < lone.size(); ++i) {
    residuals.push_back(residual_pct(fit, lone[i]));
    messages[i]["pingpong"]["fit_s"] = evaluate(fit, lone[i].bytes);
    messages[i]["pingpong"]["fit_residual_pct"] = residuals.back();
    std::size_t k = 0;
    for (auto [pattern, shape] : kinds) {
      const ContendedPoint& c = contended[i * kinds.size() + k++];
      messages[i][to_string(pattern)]["model_s"] = predict(model, c);
      messages[i][to_string(pattern)]["model_error_pct"] = 100 * (predict(model, c) - c.seconds) / c.seconds;
    }
  }
  const Spread res = summarize(residuals);
  report["messages"] = messages;
  report["pingpong_fit"] = {{"segments", segments}, {"median_residual_pct", res.median}, {"max_residual_pct", res.max}};
  report["reduce"] = reduce;
  report["reduce_float_by_size"] = reduce_sizes;
  report["copy"] = local_json(args.reduce_bytes, copy_alone, copy_all);
  report["platform"] = {{"file", args.output},
                        {"route_latency_s", model.route_latency},
                        {"host_link_Bps", model.host_bandwidth},
                        {"bus_Bps", model.bus_bandwidth},
                        {"memory_bandwidth_Bps", model.memory_bandwidth}};
  if (rank != 0) return 0;

  std::ofstream xml(args.output);
  xml << platform_xml(model, {"ranks " + std::to_string(size) + ", " + std::to_string(args.reps) +
                                  " repetitions per point; report: " + args.report,
                              "memory_bandwidth = 3 x float sum reduce throughput with every rank reducing at once",
                              "ddl_memory_factors = that throughput at each size / its value at --reduce-bytes"});
  std::ofstream rep(args.report);
  rep << report.dump(1) << "\n";
  if (!xml || !rep) throw BackendError("cannot write '" + args.output + "' or '" + args.report + "'");

  std::printf("ddlcalibrate: %d ranks, %d reps, sizes %s..%s\n", size, args.reps,
              harness::format_size(args.sizes.front()).c_str(), harness::format_size(args.sizes.back()).c_str());
  std::printf("%10s %12s %8s %12s %8s", "bytes", "pingpong_us", "iqr_%", "fit_us", "resid_%");
  for (auto [pattern, shape] : kinds) std::printf(" %14s_us %7s", to_string(pattern), "model_%");
  std::printf("\n");
  for (std::size_t i = 0; i < lone.size(); ++i) {
    const json& m = messages[i];
    std::printf("%10zu %12.3f %8.1f %12.3f %8.2f", args.sizes[i], lone[i].seconds * 1e6,
                m["pingpong"]["iqr_pct"].get<double>(), m["pingpong"]["fit_s"].get<double>() * 1e6, residuals[i]);
    for (auto [pattern, shape] : kinds)
      std::printf(" %17.3f %7.1f", m[to_string(pattern)]["median_s"].get<double>() * 1e6,
                  m[to_string(pattern)]["model_error_pct"].get<double>());
    std::printf("\n");
  }
  std::printf("fit: %zu size range(s); residual vs medians: median %.2f %%, max %.2f %%\n", fit.size(), res.median, res.max);
  for (const Segment& s : fit)
    std::printf("  from %zu B: latency %.3f us, bandwidth %.3f GB/s\n", s.from_bytes, s.latency_s * 1e6, s.bandwidth() / 1e9);
  std::printf("host link %.3f GB/s, bus %.3f GB/s, route latency %.3f us\n", model.host_bandwidth / 1e9,
              model.bus_bandwidth / 1e9, model.route_latency * 1e6);
  for (const auto& [name, v] : reduce.items())
    std::printf("reduce %-8s %zu B: alone %.2f GB/s, all ranks %.2f GB/s (result bytes)\n", name.c_str(),
                args.reduce_bytes, v["alone_Bps"].get<double>() / 1e9, v["all_ranks_Bps"].get<double>() / 1e9);
  for (const json& v : reduce_sizes)
    std::printf("reduce float %zu B: alone %.2f GB/s, all ranks %.2f GB/s, memory factor %.3f\n",
                v["bytes"].get<std::size_t>(), v["alone_Bps"].get<double>() / 1e9,
                v["all_ranks_Bps"].get<double>() / 1e9, v["memory_factor"].get<double>());
  std::printf("copy %zu B: alone %.2f GB/s, all ranks %.2f GB/s\n", args.reduce_bytes, args.reduce_bytes / copy_alone.median / 1e9,
              args.reduce_bytes / copy_all.median / 1e9);
  std::printf("memory_bandwidth %.3f GB/s (3 x float, all ranks); wrote %s and %s\n", memory_bandwidth / 1e9,
              args.output.c_str(), args.report.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    abort_world("ddlcalibrate", e.what(), 1);
  }
  MPI_Finalize();
  return rc;
}
