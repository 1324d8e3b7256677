// The command-line flags ddlsim and ddlrun share (nccl-tests style), declared once so both
// tools spell, default and validate them the same way. Each tool adds its own extra flags to
// the same boost::program_options description.
#pragma once

#include <boost/program_options.hpp>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/dims.hpp"
#include "algorithms/plan.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "harness/format.hpp"
#include "harness/sweep_cases.hpp"

namespace ddl::harness {

Format parse_format(std::string_view text);  // InvalidArgument quoting the input

// Per-tool defaults: the simulator is deterministic (one iteration, no warmup), real runs are not.
struct CommonDefaults {
  std::string min_bytes = "8";
  std::string max_bytes = "256M";
  int iters = 1;
  int warmup = 0;
  std::string algo = "ddl";
  // How a row's time summarises its iterations, for -n's help: "mean" (ddlsim) or "median".
  std::string time_statistic = "mean";
};

struct CommonOptions {
  int root = 0;                    // -r: broadcast, reduce, gather and scatter's root
  std::vector<std::size_t> sizes;  // the sweep -b .. -e by -f, in bytes
  DType dtype = DType::float32;
  ReduceOp op = ReduceOp::sum;
  int iters = 1;
  int warmup = 0;
  bool check = false;
  std::vector<std::string> algos;  // names or algorithm strings (canonical), in the order asked
  bool all_algorithms = false;     // --algo all (runnable_algorithms)
  std::optional<Dims> dims;        // --dims; absent: the backend's natural grid
  std::optional<std::string> plan_file;  // --plan (only with auto in algos); the tool reads it
  Format format = Format::table;
  std::size_t segment_bytes = 0;
  int rings = 1;
  std::vector<IntraMethod> methods;   // --methods; empty: ring in every dimension
  std::optional<std::string> output;  // --output FILE; absent: standard output
};

// The auto among `algos` (an algorithm that picks others: auto, alltoall_auto, ...), which reads
// --plan's file; null when there is none.
const Algorithm* plan_reader(const std::vector<std::string>& algos);
// A plan file read for a sweep of `algos` on `ranks` ranks must be for that many ranks and for the
// collective its auto performs; InvalidArgument naming the file otherwise. `world` says what has
// the ranks ("the platform has", "this run has").
void check_plan_fits(const Plan& plan, const std::string& file,
                     const std::vector<std::string>& algos, int ranks, const std::string& world);

// -b -e -f -d -o -n -w -c -r -g -t, --coll, --algo, --dims, --plan, --format, --output,
// --segment, --rings, --methods.
void add_common_options(boost::program_options::options_description& desc,
                        const CommonDefaults& defaults);
// Reads and validates what add_common_options declared; throws InvalidArgument naming the flag.
CommonOptions read_common_options(const boost::program_options::variables_map& vm);

// "ring", "ring,ddl:4x2:ring,hd,rhd:order=far" (algorithm strings, algorithm_spec.hpp) or "all"
// (every algorithm of `collective`; for allreduce except auto, which picks one of them;
// runnable_algorithms then leaves out what the ranks cannot run). Unknown names throw
// InvalidArgument listing the known ones; bad strings name the bad token.
std::vector<std::string> resolve_algorithms(std::string_view spec,
                                            Collective collective = Collective::allreduce);

// The algorithms of `options` these ranks can run: with --algo all, where the ranks do not all
// share memory, those that need it (Algorithm::needs_shared_memory) are left out, and so are
// those that need in-switch reduction at a level not in `switch_levels` (bits 1 << SwitchLevel
// of the levels every rank has; Algorithm::needs_in_switch), and `native` where the backend has
// no library of its own (`native_library`). Named ones are kept: their run, or
// refuse_in_switch, says why it cannot.
std::vector<std::string> runnable_algorithms(const CommonOptions& options, bool ranks_share_memory,
                                             unsigned switch_levels = 0,
                                             bool native_library = false);
// Throws InvalidArgument naming the first of `algos` that needs in-switch reduction where
// `comm`'s backend has none (the real backends: MPI, CUDA), before any rank runs it.
void refuse_in_switch(const std::vector<std::string>& algos, Communicator& comm);

// --methods: "ring,hd" -> one IntraMethod per dimension (ring, hd = halving-doubling). Unknown or
// empty names throw InvalidArgument quoting the input.
std::vector<IntraMethod> parse_methods(std::string_view spec);

// The algorithm options a run uses: the shared flags plus the grid it runs on. Throws
// InvalidArgument when --methods does not give exactly one method per dimension of `dims`.
Options algorithm_options(const CommonOptions& common, const Dims& dims);

// What a collective sweep runs, from the shared flags and the grid it runs on (algorithm_options
// and its errors). Each tool adds its own settings (costs, a plan) to the options.
SweepCases sweep_cases(const CommonOptions& common, const Dims& dims);

}  // namespace ddl::harness
