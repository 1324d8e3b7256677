// ddl_call_agreement_bench: what the per-call agreement of the C API and the Python module
// (real/mpi/call_agreement.hpp) costs. Under mpirun, for each size, batches of allreduces run two
// ways in the same process, alternately: the algorithm alone (as before the check) and the
// call's signature + agree_on_call + the algorithm (as ddl_allreduce runs it now). Each batch's
// time is the slowest rank's after a barrier; the median over -n batches is printed per call.
// csv on rank 0: ranks,algo,size,plain_us,checked_us,ratio,added_us
#include <mpi.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <vector>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "harness/arguments.hpp"
#include "harness/sizes.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/call_agreement.hpp"
#include "real/mpi/call_signature.hpp"
#include "real/mpi/mpi_communicator.hpp"

namespace po = boost::program_options;
using namespace ddl;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per call of `calls` calls of `one`, the slowest rank's.
template <class Call>
double batch(MpiCommunicator& comm, int calls, Call&& one) {
  bounded_barrier(comm.comm(), comm.timeout(), false, "the barrier before a batch");
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) one();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bounded_allreduce(&s, 1, MPI_DOUBLE, MPI_MAX, comm.comm(), comm.timeout(), "the batch's time");
  return s / calls;
}

int run(int argc, char** argv) {
  po::options_description desc("ddl_call_agreement_bench: the per-call agreement's cost");
  desc.add_options()("help,h", "this help")(
      "minbytes,b", po::value<std::string>()->default_value("8"), "smallest size")(
      "maxbytes,e", po::value<std::string>()->default_value("1M"), "largest size")(
      "stepfactor,f", po::value<std::string>()->default_value("8"), "size factor")(
      "iters,n", po::value<std::string>()->default_value("15"), "batches of each way per size")(
      "algo", po::value<std::string>()->default_value("auto"), "the allreduce algorithm string")(
      "timeout", po::value<std::string>()->default_value("60"), "bound of every wait (s)");
  const po::variables_map vm =
      harness::parse_arguments(argc, argv, desc, "ddl_call_agreement_bench");
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  const std::vector<std::size_t> sizes =
      harness::size_sweep(harness::parse_size(vm["minbytes"].as<std::string>()),
                          harness::parse_size(vm["maxbytes"].as<std::string>()),
                          static_cast<std::size_t>(harness::parse_integer(
                              vm["stepfactor"].as<std::string>(), "stepfactor", 1, 1024)));
  const int batches =
      static_cast<int>(harness::parse_integer(vm["iters"].as<std::string>(), "iters", 1, 10000));
  const std::string spec_text = vm["algo"].as<std::string>();
  const AlgorithmSpec spec = parse_algorithm_spec(spec_text);
  const Algorithm& algo = find_algorithm(spec_text);
  if (algo.collective != Collective::allreduce)
    throw InvalidArgument("--algo '" + spec_text + "' is no allreduce");
  MpiCommunicator comm(MPI_COMM_WORLD,
                       harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", 3600));
  Options opts;
  opts.dims = Dims::flat(comm.size());
  if (comm.rank() == 0) std::printf("ranks,algo,size,plain_us,checked_us,ratio,added_us\n");
  for (std::size_t bytes : sizes) {
    const std::size_t count = bytes / sizeof(float);
    if (count == 0) throw InvalidArgument("sizes must hold at least one float");
    std::vector<float> x(count, 1.0f);
    const MutView view{x.data(), count * sizeof(float)};
    // About 20 ms of work per batch, at least 10 calls: long enough for the clock, short
    // enough that the two ways interleave many times.
    const int calls =
        static_cast<int>(std::clamp<std::size_t>((std::size_t{4} << 20) / bytes, 10, 2000));
    const auto plain = [&] { algo.run(comm, view, DType::float32, ReduceOp::max, opts); };
    const auto checked = [&] {
      LocalArguments mine;
      mine.canonical =
          call_signature(count, DType::float32, ReduceOp::max, spec.name, spec.apply(opts));
      agree_on_call(comm, mine);
      plain();
    };
    batch(comm, calls, plain);  // warm-up: scratch, pages, the first messages
    batch(comm, calls, checked);
    std::vector<double> a, b;
    for (int i = 0; i < batches; ++i) {  // alternate which goes first, so drift hits both
      if (i % 2 == 0) a.push_back(batch(comm, calls, plain));
      b.push_back(batch(comm, calls, checked));
      if (i % 2 == 1) a.push_back(batch(comm, calls, plain));
    }
    const double p = median(a) * 1e6, c = median(b) * 1e6;
    if (comm.rank() == 0)
      std::printf("%d,%s,%zu,%.3f,%.3f,%.3f,%.3f\n", comm.size(), spec_text.c_str(), bytes, p, c,
                  c / p, c - p);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    rc = run(argc, argv);
  } catch (const InvalidArgument& e) {
    // Every rank read the same command line and refused it alike: rank 0 says why.
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) std::cerr << "ddl_call_agreement_bench: " << e.what() << "\n";
    rc = 2;
  } catch (const std::exception& e) {
    std::cerr << "ddl_call_agreement_bench: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return rc;
}
