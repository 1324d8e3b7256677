#include "harness/trace.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

// Shortest spelling that reads back to the same double (so a round trip is exact).
std::string number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// Names go into csv cells unquoted; a separator inside one would shift every later column.
const std::string& plain(const std::string& text, const char* field) {
  DDL_CHECK(text.find_first_of(",\"\n\r") == std::string::npos,
            std::string("trace ") + field + " '" + text + "' contains a comma, quote or newline");
  return text;
}

nlohmann::json to_json(const TraceEvent& e) {
  return {{"algo", e.algo},
          {"size", e.size},
          {"iteration", e.iteration},
          {"rank", e.rank},
          {"kind", to_string(e.kind)},
          {"peer", e.peer},
          {"bytes", e.bytes},
          {"tag", e.tag},
          {"phase", e.phase},
          {"dim", e.dimension},
          {"start_us", e.start_us},
          {"end_us", e.end_us}};
}

}  // namespace

const char* to_string(TraceKind kind) {
  switch (kind) {
    case TraceKind::send: return "send";
    case TraceKind::recv: return "recv";
    case TraceKind::reduce: return "reduce";
    case TraceKind::copy: return "copy";
    case TraceKind::divide: return "divide";
    case TraceKind::compute: return "compute";
    case TraceKind::get: return "get";
    case TraceKind::put: return "put";
  }
  return "?";
}

TraceKind parse_trace_kind(std::string_view text) {
  for (TraceKind k : {TraceKind::send, TraceKind::recv, TraceKind::reduce, TraceKind::copy,
                      TraceKind::divide, TraceKind::compute, TraceKind::get, TraceKind::put})
    if (text == to_string(k)) return k;
  throw InvalidArgument("unknown trace event kind '" + std::string(text) +
                        "' (known: send, recv, reduce, copy, divide, compute, get, put)");
}

TraceFormat trace_format_for(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) {
    return path.size() > suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".csv")) return TraceFormat::csv;
  if (ends_with(".jsonl")) return TraceFormat::jsonl;
  throw InvalidArgument("trace file '" + path +
                        "' must end in .csv or .jsonl (the format follows the extension)");
}

std::string trace_csv_header() {
  std::string h;
  for (const char* c : kTraceColumns) h += (h.empty() ? "" : ",") + std::string(c);
  return h;
}

void write_trace_header(std::ostream& out, TraceFormat format) {
  if (format == TraceFormat::csv) out << trace_csv_header() << "\n";
}

void write_trace_events(std::ostream& out, TraceFormat format,
                        const std::vector<TraceEvent>& events) {
  for (const TraceEvent& e : events) {
    if (format == TraceFormat::jsonl) {
      out << to_json(e).dump() << "\n";
      continue;
    }
    out << plain(e.algo, "algo") << ',' << e.size << ',' << e.iteration << ',' << e.rank << ','
        << to_string(e.kind) << ',' << e.peer << ',' << e.bytes << ',' << e.tag << ','
        << plain(e.phase, "phase") << ',' << e.dimension << ',' << number(e.start_us) << ','
        << number(e.end_us) << "\n";
  }
}

TraceFile::TraceFile(const std::string& path) : path_(path), format_(trace_format_for(path)) {
  try {
    out_ = std::make_unique<AtomicOutput>(path);
  } catch (const InvalidArgument& e) {
    // "cannot write PATH: why" -> "cannot write trace file 'PATH': why"
    const std::string what = e.what();
    const std::string prefix = "cannot write " + path + ": ";
    const std::string why = what.starts_with(prefix) ? what.substr(prefix.size()) : what;
    throw InvalidArgument("cannot write trace file '" + path + "': " + why);
  }
}

void TraceFile::close() {
  try {
    out_->commit();
  } catch (const Error& e) {
    throw BackendError("writing trace file '" + path_ + "' failed: " + e.what());
  }
}

void write_chrome_trace(std::ostream& out, const std::vector<TraceEvent>& events) {
  // Perfetto requires the slices of one track to nest; a rank's operations overlap freely
  // (several messages in flight), so each rank is a process whose events are spread over as
  // few lanes (threads) as keep every lane free of overlaps: lane k of rank r is tid k of pid r.
  std::vector<std::size_t> order(events.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return events[a].rank != events[b].rank ? events[a].rank < events[b].rank
                                            : events[a].start_us < events[b].start_us;
  });
  std::map<int, std::vector<double>> lane_ends;  // rank -> end of the last event of each lane
  nlohmann::json list = nlohmann::json::array();
  for (std::size_t i : order) {
    const TraceEvent& e = events[i];
    std::vector<double>& lanes = lane_ends[e.rank];
    std::size_t lane = 0;
    while (lane < lanes.size() && lanes[lane] > e.start_us) ++lane;
    if (lane == lanes.size()) lanes.push_back(e.end_us);
    lanes[lane] = e.end_us;
    list.push_back(
        {{"name", std::string(to_string(e.kind)) + (e.phase.empty() ? "" : " " + e.phase)},
         {"cat", to_string(e.kind)},
         {"ph", "X"},
         {"ts", e.start_us},
         {"dur", std::max(0.0, e.end_us - e.start_us)},
         {"pid", e.rank},
         {"tid", lane},
         {"args",
          {{"peer", e.peer},
           {"bytes", e.bytes},
           {"tag", e.tag},
           {"phase", e.phase},
           {"dim", e.dimension},
           {"algo", e.algo},
           {"size", e.size},
           {"iteration", e.iteration}}}});
  }
  for (const auto& [rank, lanes] : lane_ends) {
    const std::string name = "rank " + std::to_string(rank);
    list.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", rank}, {"args", {{"name", name}}}});
    list.push_back({{"name", "process_sort_index"},
                    {"ph", "M"},
                    {"pid", rank},
                    {"args", {{"sort_index", rank}}}});
    for (std::size_t lane = 0; lane < lanes.size(); ++lane)
      list.push_back(
          {{"name", "thread_name"},
           {"ph", "M"},
           {"pid", rank},
           {"tid", lane},
           {"args", {{"name", lane == 0 ? name : name + " (" + std::to_string(lane + 1) + ")"}}}});
  }
  out << nlohmann::json{{"traceEvents", list}, {"displayTimeUnit", "ns"}}.dump() << "\n";
}

}  // namespace ddl::harness
