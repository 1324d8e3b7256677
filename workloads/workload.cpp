#include "workloads/workload.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"
#include "workloads/workload_reference.hpp"

namespace ddl::harness {

namespace {

constexpr std::string_view kHeader = "layer,kind,params,forward_macs";
// The same with each layer's measured times at the reference batch (python -m ddl.workload
// --measure writes it).
constexpr std::string_view kTimedHeader = "layer,kind,params,forward_macs,forward_ms,backward_ms";

std::string trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// Limits that keep every derived quantity exact: 2^40 parameters are 4 TiB of fp32 gradients,
// far past any model, and their byte count cannot wrap a 64-bit size (2^62 parameters wrapped to
// 0 gradient bytes).
constexpr std::uint64_t kMaxParams = std::uint64_t{1} << 40;
constexpr double kMaxIterationMs = 3.6e6;  // an hour for one training iteration on one GPU
constexpr double kMaxBackwardToForward = 1000;

std::string spelled(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::uint64_t parse_count(const std::string& text, const std::string& where, const char* what) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size())
    throw InvalidArgument(where + ": " + what + " '" + text + "' is not a non-negative integer");
  return v;
}

// The whole of `text` as a finite number, or nothing.
std::optional<double> finite_number(const std::string& text) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// A finite number in [0, max] (`unit` only for the message).
double parse_in_range(const std::string& text, const std::string& where, const char* what,
                      double max, const char* unit = "") {
  const std::optional<double> v = finite_number(text);
  if (!v || *v < 0 || *v > max)
    throw InvalidArgument(where + ": " + what + " '" + text + "' is not a number in [0, " +
                          spelled(max) + "]" + unit);
  return *v;
}

// A finite number in (0, max]: "inf" would stall the simulator (an endless compute) and the
// real backend (a busy-wait as long as --timeout), "nan" poisons every time it touches.
double parse_positive(const std::string& text, const std::string& where, const char* what,
                      double max) {
  const std::optional<double> parsed = finite_number(text);
  const double v = parsed.value_or(0);
  if (!(v > 0))
    throw InvalidArgument(where + ": " + what + " '" + text + "' is not a positive finite number");
  if (v > max)
    throw InvalidArgument(where + ": " + what + " '" + text + "' is larger than " + spelled(max));
  return v;
}

// With measured times the file's reference_iteration_ms and backward_to_forward are their sums
// (to the 1 % the printed digits allow): a hand-edited row that breaks them is caught.
void check_measured_totals(const Workload& w, const std::string& at_iteration,
                           const std::string& at_ratio) {
  double forward = 0, backward = 0;
  for (const Layer& l : w.layers) {
    forward += l.forward_s;
    backward += l.backward_s;
  }
  if (!(forward > 0) || !(backward > 0))
    throw InvalidArgument(at_iteration + ": the measured layers sum to forward " +
                          spelled(forward * 1e3) + " ms, backward " + spelled(backward * 1e3) +
                          " ms: both must be positive");
  const auto near = [](double a, double b) { return std::abs(a - b) <= 0.01 * b; };
  if (!near(w.reference_iteration_s, forward + backward))
    throw InvalidArgument(
        at_iteration + ": reference_iteration_ms " + spelled(w.reference_iteration_s * 1e3) +
        " is not the measured layers' sum " + spelled((forward + backward) * 1e3) + " ms");
  if (!near(w.backward_to_forward, backward / forward))
    throw InvalidArgument(at_ratio + ": backward_to_forward " + spelled(w.backward_to_forward) +
                          " is not the measured layers' ratio " + spelled(backward / forward));
}

// A finite number in [0, max], or 0 when the optional parameter is absent.
double parse_optional(const std::map<std::string, std::string>& params, const std::string& where,
                      const char* key, double max) {
  const auto it = params.find(key);
  return it == params.end() ? 0 : parse_in_range(it->second, where, key, max);
}

constexpr const char* kKnownParameters[] = {"model",
                                            "reference_batch",
                                            "reference_iteration_ms",
                                            "backward_to_forward",
                                            "total_params",
                                            "total_forward_macs",
                                            "compute_jitter_cv",
                                            "bucket_launch_us",
                                            "data_loading_ms",
                                            "sample",
                                            kReferenceKeys[0],
                                            kReferenceKeys[1],
                                            kReferenceKeys[2]};

}  // namespace

std::size_t Workload::total_params() const {
  std::size_t n = 0;
  for (const Layer& l : layers) n += l.params;
  return n;
}

Workload parse_workload(std::istream& in, const std::string& source) {
  std::map<std::string, std::string> params;
  std::map<std::string, std::size_t> param_lines;  // where each parameter was given
  Workload w;
  std::uint64_t total_params = 0, total_macs = 0;
  bool header_seen = false;
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string where = source + ":" + std::to_string(number);
    const std::string text = trim(line);
    if (text.empty()) continue;
    if (text[0] == '#') {
      // "# key = value" is a parameter; any other comment is prose.
      const std::string body = trim(std::string_view(text).substr(1));
      const auto eq = body.find(" = ");
      if (eq == std::string::npos || body.find_first_of(" \t") < eq) continue;
      const std::string key = body.substr(0, eq);
      if (std::find(std::begin(kKnownParameters), std::end(kKnownParameters), key) ==
          std::end(kKnownParameters)) {
        std::string known;
        for (const char* k : kKnownParameters)
          known += (known.empty() ? "" : ", ") + std::string(k);
        throw InvalidArgument(where + ": unknown parameter '" + key + "' (known: " + known + ")");
      }
      if (!params.emplace(key, trim(std::string_view(body).substr(eq + 3))).second)
        throw InvalidArgument(where + ": parameter '" + key + "' given twice");
      param_lines[key] = number;
      continue;
    }
    if (!header_seen) {
      if (text != kHeader && text != kTimedHeader)
        throw InvalidArgument(where + ": expected the header '" + std::string(kHeader) + "' or '" +
                              std::string(kTimedHeader) + "', got '" + text + "'");
      header_seen = true;
      w.measured_times = text == kTimedHeader;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream row(text);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(trim(cell));
    const std::size_t want = w.measured_times ? 6 : 4;
    if (cells.size() != want || cells[0].empty())
      throw InvalidArgument(where + ": expected " + std::to_string(want) + " cells (" +
                            std::string(w.measured_times ? kTimedHeader : kHeader) + "), got '" +
                            text + "'");
    const std::uint64_t layer_params = parse_count(cells[2], where, "params");
    const std::uint64_t layer_macs = parse_count(cells[3], where, "forward_macs");
    total_params += layer_params;  // both below 2^40: no wrap
    if (layer_params > kMaxParams || total_params > kMaxParams)
      throw InvalidArgument(where + ": params: the layers so far hold " +
                            std::to_string(total_params) +
                            " parameters, more than the 2^40 a workload may have");
    if (__builtin_add_overflow(total_macs, layer_macs, &total_macs))
      throw InvalidArgument(where + ": forward_macs: the layers' multiply-adds overflow 2^64");
    Layer layer{cells[0], cells[1], static_cast<std::size_t>(layer_params), layer_macs, 0, 0};
    if (w.measured_times) {
      // A layer's measured time: at most the hour a whole iteration may take.
      layer.forward_s =
          parse_in_range(cells[4], where, "forward_ms", kMaxIterationMs, " ms") * 1e-3;
      layer.backward_s =
          parse_in_range(cells[5], where, "backward_ms", kMaxIterationMs, " ms") * 1e-3;
    }
    w.layers.push_back(std::move(layer));
  }
  if (!header_seen)
    throw InvalidArgument(source + ": no header line '" + std::string(kHeader) + "'");
  if (w.layers.empty()) throw InvalidArgument(source + ": no layers");
  const auto take = [&](const char* key) -> std::string {
    const auto it = params.find(key);
    if (it == params.end())
      throw InvalidArgument(source + ": missing parameter '# " + std::string(key) + " = ...'");
    return it->second;
  };
  const auto at = [&](const char* key) { return source + ":" + std::to_string(param_lines[key]); };
  w.model = take("model");
  w.reference_batch = static_cast<std::size_t>(
      parse_count(take("reference_batch"), at("reference_batch"), "reference_batch"));
  if (w.reference_batch == 0 || w.reference_batch > 1'000'000)
    throw InvalidArgument(at("reference_batch") + ": reference_batch must be 1 to 1000000 images");
  w.reference_iteration_s =
      parse_positive(take("reference_iteration_ms"), at("reference_iteration_ms"),
                     "reference_iteration_ms", kMaxIterationMs) *
      1e-3;
  w.backward_to_forward = parse_positive(take("backward_to_forward"), at("backward_to_forward"),
                                         "backward_to_forward", kMaxBackwardToForward);
  w.effects.jitter_cv = parse_optional(params, at("compute_jitter_cv"), "compute_jitter_cv", 1);
  w.effects.bucket_launch_s =
      parse_optional(params, at("bucket_launch_us"), "bucket_launch_us", 60e6) * 1e-6;
  w.effects.data_loading_s =
      parse_optional(params, at("data_loading_ms"), "data_loading_ms", 60e3) * 1e-3;
  read_reference_keys(params, at, source, w);
  const std::uint64_t macs = total_macs;
  if (w.measured_times)
    check_measured_totals(w, at("reference_iteration_ms"), at("backward_to_forward"));
  else if (macs == 0)
    throw InvalidArgument(source + ": the layers have no forward multiply-adds");
  // The totals are optional cross-checks: a hand-edited row that breaks them is caught here.
  if (params.count("total_params") &&
      parse_count(params["total_params"], at("total_params"), "total_params") != w.total_params())
    throw InvalidArgument(source + ": the layers hold " + std::to_string(w.total_params()) +
                          " parameters, total_params says " + params["total_params"]);
  if (params.count("total_forward_macs") &&
      parse_count(params["total_forward_macs"], at("total_forward_macs"), "total_forward_macs") !=
          macs)
    throw InvalidArgument(source + ": the layers hold " + std::to_string(macs) +
                          " multiply-adds, total_forward_macs says " +
                          params["total_forward_macs"]);
  return w;
}

Workload load_workload(const std::string& path) {
  // A directory "opens" and reads as empty; a FIFO or a device never ends. A model of thousands
  // of layers is a few hundred KB.
  check_readable(path, "workload file", std::uintmax_t{64} << 20);
  std::ifstream in(path);
  if (!in) throw InvalidArgument("cannot open workload file '" + path + "'");
  return parse_workload(in, path);
}

std::vector<std::string> known_workloads() {
  return {"resnet50", "resnet101", "gpt2_small", "bert_base"};
}

std::string workload_path(std::string_view name, const std::string& workloads_dir) {
  std::string list;
  for (const std::string& k : known_workloads()) {
    if (k == name) return workloads_dir + "/" + k + ".csv";
    list += (list.empty() ? "" : ", ") + k;
  }
  throw InvalidArgument("unknown workload '" + std::string(name) + "' (known: " + list + ")");
}

}  // namespace ddl::harness
