#include "harness/cli.hpp"

#include <algorithm>

#include "algorithms/algorithm_spec.hpp"
#include "algorithms/error.hpp"
#include "algorithms/switch_reduction.hpp"
#include "harness/arguments.hpp"
#include "harness/output_file.hpp"
#include "harness/sizes.hpp"

namespace po = boost::program_options;

namespace ddl::harness {

Format parse_format(std::string_view text) {
  if (text == "table") return Format::table;
  if (text == "csv") return Format::csv;
  if (text == "json") return Format::json;
  if (text == "nccl") return Format::nccl;
  throw InvalidArgument("unknown --format '" + std::string(text) +
                        "' (known: table, csv, json, nccl)");
}

void add_common_options(po::options_description& desc, const CommonDefaults& d) {
  const Options algo_defaults;
  // clang-format off
  desc.add_options()
      ("minbytes,b", po::value<std::string>()->default_value(d.min_bytes), "smallest message size (8, 64K, 1M, 1G)")
      ("maxbytes,e", po::value<std::string>()->default_value(d.max_bytes), "largest message size")
      ("stepfactor,f", po::value<std::string>()->default_value("2"), "multiply the size by this between rows")
      ("dtype,d", po::value<std::string>()->default_value("float"),
       "element type: float, double, half, bfloat16, int32, int64")
      ("op,o", po::value<std::string>()->default_value("sum"), "reduction: sum, prod, min, max, avg")
      ("iters,n", po::value<int>()->default_value(d.iters),
       ("timed iterations per size (time = their " + d.time_statistic + ")").c_str())
      ("warmup,w", po::value<int>()->default_value(d.warmup), "untimed iterations before them")
      ("check,c", po::value<std::string>()->default_value("0")->implicit_value("1"),
       "move real data and count wrong elements (#wrong): -c, -c 1 or --check; -c 0 is off")
      ("coll", po::value<std::string>(),
       "collective, as nccl-tests' tools: allreduce, reducescatter, allgather, alltoall, "
       "broadcast, reduce, gather, scatter or sendrecv (default: allreduce, or what --algo's "
       "algorithms perform); --algo then names its algorithms, by default its first one")
      ("algo", po::value<std::string>()->default_value(d.algo),
       "algorithm name or string (name[:dims][:methods][:key=value,...], e.g. "
       "ddl:4x8x8:ring,hd,hd:rings=2 or rhd:order=far), a comma-separated list of them, or 'all' "
       "(every algorithm of --coll)")
      ("root,r", po::value<int>()->default_value(0), "root rank of broadcast, reduce, gather and scatter")
      ("ngpus,g", po::value<int>()->default_value(1),
       "nccl-tests' GPUs per thread: 1 only (every rank is one GPU)")
      ("nthreads,t", po::value<int>()->default_value(1),
       "nccl-tests' threads per process: 1 only (every rank is one process or simulated actor)")
      ("dims", po::value<std::string>(), "logical grid, innermost first, e.g. 4x8x8")
      ("plan", po::value<std::string>(),
       "auto: run a plan file's algorithm for each size (written by ddlplan) instead of the cost "
       "model's choice; needs auto in --algo")
      ("format", po::value<std::string>()->default_value("table"),
       "output: table, csv, json, or nccl (nccl-tests' table of one algorithm: out-of-place and "
       "in-place column groups, root, the closing '# Avg bus bandwidth' line)")
      ("output", po::value<std::string>(),
       "write the report to FILE instead of standard output, all or nothing (under mpirun "
       "standard output passes through mpirun, which does not report a failed write)")
      ("segment", po::value<std::string>()->default_value(format_size(algo_defaults.segment_bytes)),
       "pipelining segment size (0: whole transfers)")
      ("rings", po::value<int>()->default_value(algo_defaults.rings),
       "ddl: concurrent rotated-order rings (slices)")
      ("methods", po::value<std::string>(),
       "ddl: exchange per dimension, one per dimension of the grid: ring or hd (halving-doubling, "
       "power-of-two extents), e.g. ring,hd (default: ring everywhere)");
  // clang-format on
}

namespace {

// Larger counts overflow the iteration loops' int (-w + -n) and are days of running anyway.
constexpr long long kMaxIterations = 10'000'000;
constexpr long long kMaxRings = 1024;
constexpr long long kMaxRoot = 1 << 24;  // past any rank count; the grid then bounds it

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

int int_flag(const po::variables_map& vm, const char* flag, long long min, long long max) {
  const int value = vm[flag].as<int>();
  if (value < min || value > max)
    throw InvalidArgument(
        "--" + std::string(flag) + " must be " +
        (value < min ? "at least " + std::to_string(min) : "at most " + std::to_string(max)) +
        ", got " + std::to_string(value));
  return value;
}

bool check_flag(const std::string& text) {
  if (text == "1") return true;
  if (text == "0") return false;
  throw InvalidArgument("bad --check '" + text +
                        "': give -c 0 or -c 1 (nccl-tests), or --check alone");
}

// A size that is not whole elements would be rounded down in silence: 1 B of float is no float.
// The sweep multiplies -b by an integer, so -b being whole elements makes every size whole.
void require_whole_elements(std::size_t min_bytes, DType dtype) {
  const std::size_t elem = dtype_size(dtype);
  if (min_bytes % elem != 0)
    throw InvalidArgument("--minbytes " + std::to_string(min_bytes) + " is not a whole number of " +
                          std::string(to_string(dtype)) + " elements (" + std::to_string(elem) +
                          " B each): give a multiple of " + std::to_string(elem) + " bytes");
}

// A flag given with no algorithm of the run that takes it, or for an algorithm string that sets
// the same field itself (the string wins), would be ignored in silence.
void require_taken(const po::variables_map& vm, const char* flag, SpecField field,
                   const std::vector<std::string>& algos) {
  if (vm[flag].defaulted()) return;
  bool taken = false;
  for (const std::string& name : algos) {
    const Algorithm& a = find_algorithm(name);
    if (!a.picks_others && (a.fields & field) == 0) continue;
    const AlgorithmSpec spec = parse_algorithm_spec(name);
    if ((field == kSpecRings && spec.rings) || (field == kSpecMethods && !spec.methods.empty()))
      throw InvalidArgument("--" + std::string(flag) + " does not go with '" + name +
                            "', which sets its own: give one of them");
    taken = true;
  }
  if (!taken) {
    std::string takers;
    for (const Algorithm& a : algorithms())
      if ((a.fields & field) != 0 || a.picks_others)
        takers += (takers.empty() ? "" : ", ") + a.name;
    throw InvalidArgument("--" + std::string(flag) + " applies to " + takers +
                          ", not to the algorithms of --algo");
  }
}

// A segment that is not whole elements would be rounded in silence, as a size would: the flag's
// and every algorithm string's (segment=BYTES).
void require_whole_segments(std::size_t segment_bytes, DType dtype,
                            const std::vector<std::string>& algos) {
  const std::size_t elem = dtype_size(dtype);
  const auto check = [&](std::size_t bytes, const std::string& what) {
    if (bytes % elem != 0)
      throw InvalidArgument(what + " " + std::to_string(bytes) + " is not a whole number of " +
                            std::string(to_string(dtype)) + " elements (" + std::to_string(elem) +
                            " B each): give a multiple of " + std::to_string(elem) + " bytes");
  };
  check(segment_bytes, "--segment");
  for (const std::string& name : algos)
    if (const auto own = parse_algorithm_spec(name).segment_bytes)
      check(*own, "'" + name + "': segment");
}

}  // namespace

const Algorithm* plan_reader(const std::vector<std::string>& algos) {
  for (const std::string& a : algos)
    if (find_algorithm(a).picks_others) return &find_algorithm(a);
  return nullptr;
}

void check_plan_fits(const Plan& plan, const std::string& file,
                     const std::vector<std::string>& algos, int ranks, const std::string& world) {
  if (plan.ranks != ranks)
    throw InvalidArgument("plan file '" + file + "' is for " + std::to_string(plan.ranks) +
                          " ranks, " + world + " " + std::to_string(ranks));
  const Algorithm* reader = plan_reader(algos);
  if (reader && reader->collective != plan.collective)
    throw InvalidArgument(
        "plan file '" + file + "' is a plan for " + std::string(to_string(plan.collective)) +
        ", and " + reader->name + " performs " + std::string(to_string(reader->collective)) +
        " (make one with ddlplan --coll " + std::string(to_string(reader->collective)) + ")");
}

CommonOptions read_common_options(const po::variables_map& vm) {
  CommonOptions o;
  const std::size_t min_bytes = parse_size(vm["minbytes"].as<std::string>());
  const std::size_t max_bytes = parse_size(vm["maxbytes"].as<std::string>());
  const auto factor = static_cast<std::size_t>(
      parse_integer(vm["stepfactor"].as<std::string>(), "stepfactor", 0, 1LL << 40));
  o.sizes = size_sweep(min_bytes, max_bytes, factor);
  o.dtype = parse_dtype(vm["dtype"].as<std::string>());
  require_whole_elements(o.sizes.front(), o.dtype);
  o.op = parse_reduce_op(vm["op"].as<std::string>());
  o.iters = int_flag(vm, "iters", 1, kMaxIterations);
  o.warmup = int_flag(vm, "warmup", 0, kMaxIterations);
  o.check = check_flag(vm["check"].as<std::string>());
  for (const char* flag : {"ngpus", "nthreads"})
    if (vm[flag].as<int>() != 1)
      throw InvalidArgument(std::string(flag == std::string("ngpus") ? "-g" : "-t") + " " +
                            std::to_string(vm[flag].as<int>()) +
                            ": every rank drives one GPU from one thread here; give more ranks "
                            "instead (the platform's GPUs for ddlsim, mpirun -np for ddlrun)");
  o.root = int_flag(vm, "root", 0, kMaxRoot);
  const std::string algo = vm["algo"].as<std::string>();
  if (vm.count("coll")) {
    // Every algorithm of --algo must perform it; without --coll they perform what they do.
    const Collective c = parse_collective(vm["coll"].as<std::string>());
    o.algos = vm["algo"].defaulted() && c != Collective::allreduce
                  ? std::vector<std::string>{algorithm_names(c).front()}
                  : resolve_algorithms(algo, c);
    for (const std::string& n : o.algos)
      if (find_algorithm(n).collective != c)
        throw InvalidArgument("--algo " + n + " performs " +
                              std::string(to_string(find_algorithm(n).collective)) +
                              ", not --coll " + std::string(to_string(c)) +
                              " (its algorithms: " + join(algorithm_names(c)) + ")");
  } else {
    o.algos = resolve_algorithms(algo);
  }
  o.all_algorithms = algo == "all";
  if (vm.count("dims")) o.dims = Dims::parse(vm["dims"].as<std::string>());
  if (vm.count("plan")) {
    if (!plan_reader(o.algos))
      throw InvalidArgument("--plan is what auto runs: give --algo auto (with or without others)");
    o.plan_file = vm["plan"].as<std::string>();
  }
  o.format = parse_format(vm["format"].as<std::string>());
  if (o.format == Format::nccl) {
    std::vector<std::string> distinct;
    for (const std::string& n : o.algos)
      if (std::find(distinct.begin(), distinct.end(), n) == distinct.end()) distinct.push_back(n);
    if (distinct.size() != 1)
      throw InvalidArgument(
          "--format nccl prints nccl-tests' table of one algorithm, but --algo "
          "gives " +
          std::to_string(distinct.size()) + " (" + join(distinct) +
          "): name one, or use --format table to compare them side by side");
  }
  if (vm.count("output")) {
    o.output = vm["output"].as<std::string>();
    check_writable(*o.output);
  }
  o.segment_bytes = parse_size(vm["segment"].as<std::string>());
  require_whole_segments(o.segment_bytes, o.dtype, o.algos);
  o.rings = int_flag(vm, "rings", 1, kMaxRings);
  require_taken(vm, "rings", kSpecRings, o.algos);
  if (vm.count("methods")) {
    o.methods = parse_methods(vm["methods"].as<std::string>());
    require_taken(vm, "methods", kSpecMethods, o.algos);
  }
  return o;
}

std::vector<std::string> resolve_algorithms(std::string_view spec, Collective collective) {
  if (spec == "all") {
    std::vector<std::string> names;
    for (const std::string& n : algorithm_names(collective))
      if (!find_algorithm(n).picks_others) names.push_back(n);
    return names;
  }
  std::vector<std::string> names;
  // Names or algorithm strings (algorithms/algorithm_spec.hpp), in canonical form; a bad one
  // throws naming it (and its bad token). `auto` is the collective's own (alltoall_auto, ...).
  for (const std::string& one : split_algorithm_list(spec)) {
    const std::string own = std::string(to_string(collective)) + "_auto";
    names.push_back(
        find_algorithm(one == "auto" && collective != Collective::allreduce && find_registered(own)
                           ? own
                           : one)
            .name);
  }
  return names;
}

std::vector<std::string> runnable_algorithms(const CommonOptions& options, bool ranks_share_memory,
                                             unsigned switch_levels, bool native_library) {
  if (!options.all_algorithms) return options.algos;
  std::vector<std::string> names;
  for (const std::string& n : options.algos) {
    const Algorithm& a = find_algorithm(n);
    if (a.needs_shared_memory && !ranks_share_memory) continue;
    if ((a.needs_in_switch & ~switch_levels) != 0) continue;
    if (a.needs_native_library && !native_library) continue;
    names.push_back(n);
  }
  return names;
}

void refuse_in_switch(const std::vector<std::string>& algos, Communicator& comm) {
  if (comm.switch_reduction() != nullptr) return;
  for (const std::string& n : algos) {
    const Algorithm& a = find_algorithm(n);
    if (a.needs_in_switch == 0) continue;
    const std::string name = n.substr(0, n.find(':'));
    throw InvalidArgument(name + ": this backend has no in-switch reduction (" +
                          ((a.needs_in_switch & (1u << kNodeSwitch)) ? "NVLS" : "SHARP") +
                          "): " + name +
                          " runs on the simulator (ddlsim) on a platform whose switches reduce");
  }
}

std::vector<IntraMethod> parse_methods(std::string_view spec) {
  std::vector<IntraMethod> methods;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = spec.find(',', pos);
    const std::string_view name =
        spec.substr(pos, comma == std::string_view::npos ? comma : comma - pos);
    if (name == "ring")
      methods.push_back(IntraMethod::ring);
    else if (name == "hd")
      methods.push_back(IntraMethod::halving_doubling);
    else
      throw InvalidArgument("bad --methods '" + std::string(spec) + "': unknown method '" +
                            std::string(name) + "' (known: ring, hd)");
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return methods;
}

Options algorithm_options(const CommonOptions& common, const Dims& dims) {
  if (!common.methods.empty() && common.methods.size() != static_cast<std::size_t>(dims.count()))
    throw InvalidArgument("--methods gives " + std::to_string(common.methods.size()) +
                          " method(s) but dims '" + dims.to_string() + "' have " +
                          std::to_string(dims.count()) + " dimension(s)");
  Options opts;
  opts.methods = common.methods;
  opts.dims = dims;
  opts.segment_bytes = common.segment_bytes;
  opts.rings = common.rings;
  opts.root = common.root;
  if (common.root >= dims.rank_count())
    throw InvalidArgument("-r " + std::to_string(common.root) + ": the root must be a rank, 0 to " +
                          std::to_string(dims.rank_count() - 1));
  return opts;
}

SweepCases sweep_cases(const CommonOptions& common, const Dims& dims) {
  SweepCases cases;
  cases.algos = common.algos;
  cases.sizes = common.sizes;
  cases.type = common.dtype;
  cases.op = common.op;
  cases.iters = common.iters;
  cases.warmup = common.warmup;
  cases.check = common.check;
  cases.out_of_place_too = common.format == Format::nccl;
  cases.options = algorithm_options(common, dims);
  return cases;
}

}  // namespace ddl::harness
