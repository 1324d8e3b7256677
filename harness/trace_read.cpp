#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <istream>
#include <nlohmann/json.hpp>
#include <utility>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"
#include "harness/trace.hpp"

// Reading traces back (ddltrace, the comparisons of analysis/): every field checked, the line
// named, so a trace edited by hand or cut short is refused rather than misread.

namespace ddl::harness {

namespace {

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
  if (c.size() != std::size(kTraceColumns))
    bad_line(source, line,
             "expected " + std::to_string(std::size(kTraceColumns)) + " columns, got " +
                 std::to_string(c.size()));
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
  for (const char* column : kTraceColumns)
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

}  // namespace ddl::harness
