#include "harness/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <utility>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace {

constexpr const char* kColumns[] = {"algo",  "size", "iteration", "rank", "kind",     "peer",
                                    "bytes", "tag",  "phase",     "dim",  "start_us", "end_us"};
constexpr std::size_t kColumnCount = std::size(kColumns);

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

[[noreturn]] void bad_line(const std::string& source, std::size_t line, const std::string& why) {
  throw InvalidArgument(source + ":" + std::to_string(line) + ": " + why);
}

template <typename T>
T parse_number(std::string_view cell, const char* column, const std::string& source,
               std::size_t line) {
  T value{};
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
    bad_line(source, line, "bad " + std::string(column) + " '" + std::string(cell) + "'");
  return value;
}

// What a recorded event can hold: a NaN or infinite time, a negative rank or an end before the
// start would export as nonsense (or crash a viewer), so reading refuses them, naming the line.
// Names are identifiers ("ring", "reduce_scatter"): printable ASCII, no comma or quote. Other
// bytes would shift csv columns or, not being UTF-8, make the JSON export throw.
void check_name(const std::string& name, const char* column, const std::string& source,
                std::size_t line) {
  for (const char c : name)
    if (c < 0x21 || c > 0x7e || c == ',' || c == '"')
      bad_line(source, line,
               std::string(column) + " must be printable ASCII without spaces, commas or quotes");
}

void check_event(const TraceEvent& e, const std::string& source, std::size_t line) {
  check_name(e.algo, "algo", source, line);
  check_name(e.phase, "phase", source, line);
  if (!std::isfinite(e.start_us) || !std::isfinite(e.end_us))
    bad_line(source, line, "start_us and end_us must be finite numbers");
  if (e.end_us < e.start_us) bad_line(source, line, "end_us is before start_us");
  if (e.rank < 0) bad_line(source, line, "rank " + std::to_string(e.rank) + " is negative");
  if (e.peer < -1) bad_line(source, line, "peer " + std::to_string(e.peer) + " is below -1 (none)");
  if (e.tag < -1) bad_line(source, line, "tag " + std::to_string(e.tag) + " is below -1 (none)");
  if (e.dimension < -1)
    bad_line(source, line, "dim " + std::to_string(e.dimension) + " is below -1 (none)");
}

std::vector<std::string_view> split_cells(std::string_view text) {
  std::vector<std::string_view> cells;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    cells.push_back(text.substr(pos, comma == std::string_view::npos ? comma : comma - pos));
    if (comma == std::string_view::npos) return cells;
    pos = comma + 1;
  }
}

TraceEvent event_from_cells(const std::vector<std::string_view>& c, const std::string& source,
                            std::size_t line) {
  if (c.size() != kColumnCount)
    bad_line(
        source, line,
        "expected " + std::to_string(kColumnCount) + " columns, got " + std::to_string(c.size()));
  TraceEvent e;
  e.algo = std::string(c[0]);
  e.size = parse_number<std::size_t>(c[1], "size", source, line);
  e.iteration = parse_number<int>(c[2], "iteration", source, line);
  e.rank = parse_number<int>(c[3], "rank", source, line);
  try {
    e.kind = parse_trace_kind(c[4]);
  } catch (const InvalidArgument& err) {
    bad_line(source, line, err.what());
  }
  e.peer = parse_number<int>(c[5], "peer", source, line);
  e.bytes = parse_number<std::size_t>(c[6], "bytes", source, line);
  e.tag = parse_number<int>(c[7], "tag", source, line);
  e.phase = std::string(c[8]);
  e.dimension = parse_number<int>(c[9], "dim", source, line);
  e.start_us = parse_number<double>(c[10], "start_us", source, line);
  e.end_us = parse_number<double>(c[11], "end_us", source, line);
  check_event(e, source, line);
  return e;
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

// An integer field, checked: nlohmann's get<int>() converts 1e112 (undefined behaviour) and
// wraps 4294967297 to 1 without a word (found by fuzz_trace).
template <typename T>
T json_integer(const nlohmann::json& j, const char* key, const std::string& source,
               std::size_t line) {
  const nlohmann::json& v = j.at(key);
  if (!v.is_number_integer())
    bad_line(source, line, std::string(key) + " must be an integer, got " + v.dump());
  const bool fits = v.is_number_unsigned() ? std::in_range<T>(v.get<std::uint64_t>())
                                           : std::in_range<T>(v.get<std::int64_t>());
  if (!fits) bad_line(source, line, std::string(key) + " " + v.dump() + " is out of range");
  return v.is_number_unsigned() ? static_cast<T>(v.get<std::uint64_t>())
                                : static_cast<T>(v.get<std::int64_t>());
}

TraceEvent event_from_json(const std::string& text, const std::string& source, std::size_t line) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& err) {
    bad_line(source, line, err.what());
  }
  if (!j.is_object()) bad_line(source, line, "expected a JSON object");
  for (const char* column : kColumns)
    if (!j.contains(column)) bad_line(source, line, std::string("missing field '") + column + "'");
  TraceEvent e;
  std::string kind;
  try {
    e.algo = j.at("algo").get<std::string>();
    e.size = json_integer<std::size_t>(j, "size", source, line);
    e.iteration = json_integer<int>(j, "iteration", source, line);
    e.rank = json_integer<int>(j, "rank", source, line);
    kind = j.at("kind").get<std::string>();
    e.peer = json_integer<int>(j, "peer", source, line);
    e.bytes = json_integer<std::size_t>(j, "bytes", source, line);
    e.tag = json_integer<int>(j, "tag", source, line);
    e.phase = j.at("phase").get<std::string>();
    e.dimension = json_integer<int>(j, "dim", source, line);
    e.start_us = j.at("start_us").get<double>();
    e.end_us = j.at("end_us").get<double>();
  } catch (const nlohmann::json::exception& err) {
    bad_line(source, line, err.what());
  }
  try {
    e.kind = parse_trace_kind(kind);
  } catch (const InvalidArgument& err) {
    bad_line(source, line, err.what());
  }
  check_event(e, source, line);
  return e;
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
  for (const char* c : kColumns) h += (h.empty() ? "" : ",") + std::string(c);
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

namespace {

// One line without its end: a trace that went through a Windows editor or spreadsheet ends its
// lines in CR LF and may open with a UTF-8 byte-order mark; both are dropped, not misread.
bool next_line(std::istream& in, std::string& text, std::size_t line) {
  if (!std::getline(in, text)) return false;
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (line == 1 && text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  return true;
}

}  // namespace

std::vector<TraceEvent> read_trace(std::istream& in, TraceFormat format,
                                   const std::string& source) {
  std::vector<TraceEvent> events;
  std::string text;
  std::size_t line = 0;
  if (format == TraceFormat::csv) {
    ++line;
    if (!next_line(in, text, line) || text != trace_csv_header())
      bad_line(source, line, "expected the header '" + trace_csv_header() + "'");
  }
  while (next_line(in, text, line + 1)) {
    ++line;
    if (text.empty()) continue;
    events.push_back(format == TraceFormat::csv ? event_from_cells(split_cells(text), source, line)
                                                : event_from_json(text, source, line));
  }
  return events;
}

std::vector<TraceEvent> read_trace_file(const std::string& path) {
  const TraceFormat format = trace_format_for(path);
  // Events are held in memory (about twice their text): 2 GiB of text is tens of millions.
  check_readable(path, "trace file", std::uintmax_t{2} << 30);
  std::ifstream in(path);
  if (!in) throw InvalidArgument("cannot read trace file '" + path + "': " + std::strerror(errno));
  return read_trace(in, format, path);
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
