#include "real/calibrate_report.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <functional>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"

namespace ddl::calibrate {
namespace {

using json = nlohmann::ordered_json;

json spread_json(const Spread& s) {
  return {{"median_s", s.median}, {"min_s", s.min}, {"q1_s", s.q1}, {"q3_s", s.q3}, {"max_s", s.max},
          {"iqr_pct", s.iqr_pct()}};
}

Spread read_spread(const json& j) {
  Spread s;
  s.median = j.at("median_s").get<double>();
  s.min = j.at("min_s").get<double>();
  s.q1 = j.at("q1_s").get<double>();
  s.q3 = j.at("q3_s").get<double>();
  s.max = j.at("max_s").get<double>();
  if (!(s.median > 0)) throw InvalidArgument("a median_s that is not a positive time");
  return s;
}

// Throughput of a local operation in result bytes per second (medians).
json local_json(const LocalTimes& t) {
  return {{"bytes", t.bytes}, {"alone_Bps", t.bytes / t.alone.median}, {"all_ranks_Bps", t.bytes / t.all_ranks.median},
          {"alone", spread_json(t.alone)}, {"all_ranks", spread_json(t.all_ranks)}};
}

LocalTimes read_local(const json& j) {
  return {j.at("bytes").get<std::size_t>(), read_spread(j.at("alone")), read_spread(j.at("all_ranks"))};
}

// Spread of the launches' medians of one point.
Spread over_launches(const std::vector<Measurements>& launches, const std::function<const Spread&(const Measurements&)>& at) {
  std::vector<double> medians;
  for (const Measurements& m : launches) medians.push_back(at(m).median);
  return summarize(std::move(medians));
}

LocalTimes combine_local(const std::vector<Measurements>& launches,
                         const std::function<const LocalTimes&(const Measurements&)>& at) {
  return {at(launches.front()).bytes, over_launches(launches, [&](const Measurements& m) -> const Spread& { return at(m).alone; }),
          over_launches(launches, [&](const Measurements& m) -> const Spread& { return at(m).all_ranks; })};
}

// Each value as the median of it and its two neighbours in size (at either end of the sweep,
// the lower of it and its one neighbour): on an oversubscribed machine one size now and then
// catches a descheduled rank (a single point 3x off between normal ones), while cache effects
// span several sizes.
std::vector<double> median_of_neighbours(const std::vector<double>& values) {
  std::vector<double> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<double> near(values.begin() + static_cast<std::ptrdiff_t>(i ? i - 1 : i),
                             values.begin() + static_cast<std::ptrdiff_t>(std::min(i + 2, values.size())));
    std::sort(near.begin(), near.end());
    out.push_back(near[(near.size() - 1) / 2]);
  }
  return out;
}

// "0:F0;B1:F1;...": factor i from bytes[i] on; the first one also covers everything below it.
std::string factor_string(const std::vector<std::size_t>& bytes, const std::vector<double>& factors) {
  std::string f;
  for (std::size_t i = 0; i < factors.size(); ++i) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", factors[i]);
    if (i) f += ';';
    f += i ? std::to_string(bytes[i]) : std::string("0");
    f += ':';
    f += text;
  }
  return f;
}

// Per message size, the exchange into peer-read buffers / the bidirectional exchange (medians);
// empty when the peer-read exchange was not measured.
std::vector<double> peer_read_ratio(const Measurements& m) {
  std::vector<double> ratios;
  if (!m.messages.front().bidirectional_peer_read) return ratios;
  const auto own =
      std::find_if(m.patterns.begin(), m.patterns.end(), [](const PatternShape& p) { return p.name == "bidirectional"; });
  if (own == m.patterns.end()) throw InvalidArgument("calibration: a peer-read exchange without the bidirectional one");
  const std::size_t k = static_cast<std::size_t>(own - m.patterns.begin());
  for (const MessageTimes& t : m.messages) ratios.push_back(t.bidirectional_peer_read->median / t.patterns[k].median);
  return ratios;
}

std::string differ(const std::vector<std::string>& sources, std::size_t i, const std::string& what) {
  return "calibration reports '" + sources.front() + "' and '" + sources[i] + "' differ in " + what +
         ": combine only launches of the same ddlcalibrate command";
}

void append(std::string& out, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  out += line;
}

}  // namespace

Measurements read_report(const json& r, const std::string& source) {
  try {
    Measurements m;
    m.ranks = r.at("ranks").get<int>();
    m.reps = r.at("reps").get<int>();
    m.launches = r.contains("launches") ? r.at("launches").get<int>() : 1;
    m.receive_buffers = r.contains("receive_buffers") ? r.at("receive_buffers").get<std::string>() : "own";
    if (m.ranks < 2 || m.reps < 1 || m.launches < 1) throw InvalidArgument("ranks, reps or launches out of range");
    for (const json& row : r.at("messages")) {
      MessageTimes t;
      t.bytes = row.at("bytes").get<std::size_t>();
      t.pingpong = read_spread(row.at("pingpong"));
      if (row.contains("bidirectional_peer_read")) t.bidirectional_peer_read = read_spread(row.at("bidirectional_peer_read"));
      if (!m.messages.empty() && t.bidirectional_peer_read.has_value() != m.messages.front().bidirectional_peer_read.has_value())
        throw InvalidArgument("only some message rows have bidirectional_peer_read");
      // The contended patterns are the row's other objects, in the order the report has them.
      for (const auto& [key, value] : row.items()) {
        if (key == "bytes" || key == "pingpong" || key == "bidirectional_peer_read") continue;
        if (m.messages.empty())
          m.patterns.push_back({key, value.at("flows").get<int>(), value.at("flows_per_host").get<int>()});
        const std::size_t k = t.patterns.size();
        if (k >= m.patterns.size() || m.patterns[k].name != key)
          throw InvalidArgument("message rows name different patterns");
        t.patterns.push_back(read_spread(value));
      }
      if (t.patterns.size() != m.patterns.size()) throw InvalidArgument("message rows name different patterns");
      if (!m.messages.empty() && t.bytes <= m.messages.back().bytes)
        throw InvalidArgument("message sizes do not increase");
      m.messages.push_back(std::move(t));
    }
    if (m.messages.size() < 2) throw InvalidArgument("fewer than 2 message sizes");
    for (const auto& [dtype, value] : r.at("reduce").items()) m.reduce.emplace_back(dtype, read_local(value));
    for (const json& row : r.at("reduce_float_by_size")) m.reduce_float_by_size.push_back(read_local(row));
    m.by_size_operands = r.contains("reduce_float_by_size_operands")
                             ? r.at("reduce_float_by_size_operands").get<std::string>()
                             : "hot";
    m.copy = read_local(r.at("copy"));
    if (r.contains("launch_reports")) m.sources = r.at("launch_reports").get<std::vector<std::string>>();
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("calibration report '" + source + "' is malformed: " + e.what());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("calibration report '" + source + "' is malformed: " + e.what());
  }
}

Measurements combine(const std::vector<Measurements>& launches, const std::vector<std::string>& sources) {
  if (launches.empty()) throw InvalidArgument("no calibration reports to combine");
  if (sources.size() != launches.size()) throw InvalidArgument("combine: one source name per report");
  const Measurements& first = launches.front();
  if (launches.size() > 1)
    for (std::size_t i = 0; i < launches.size(); ++i)
      if (launches[i].launches != 1)
        throw InvalidArgument("calibration report '" + sources[i] +
                              "' already combines launches: combine the launch reports it lists instead");
  for (std::size_t i = 1; i < launches.size(); ++i) {
    const Measurements& m = launches[i];
    if (m.ranks != first.ranks) throw InvalidArgument(differ(sources, i, "ranks"));
    if (m.receive_buffers != first.receive_buffers) throw InvalidArgument(differ(sources, i, "receive buffers"));
    if (m.by_size_operands != first.by_size_operands)
      throw InvalidArgument(
          differ(sources, i, "the operands of the reduce sweep (hot or received)"));
    if (m.messages.front().bidirectional_peer_read.has_value() != first.messages.front().bidirectional_peer_read.has_value())
      throw InvalidArgument(differ(sources, i, "whether the peer-read exchange was measured"));
    if (m.messages.size() != first.messages.size() ||
        !std::equal(m.messages.begin(), m.messages.end(), first.messages.begin(),
                    [](const MessageTimes& a, const MessageTimes& b) { return a.bytes == b.bytes; }))
      throw InvalidArgument(differ(sources, i, "message sizes"));
    if (m.patterns.size() != first.patterns.size() ||
        !std::equal(m.patterns.begin(), m.patterns.end(), first.patterns.begin(), [](const PatternShape& a, const PatternShape& b) {
          return a.name == b.name && a.flows == b.flows && a.flows_per_host == b.flows_per_host;
        }))
      throw InvalidArgument(differ(sources, i, "message patterns"));
    if (m.reduce.size() != first.reduce.size() || m.reduce_float_by_size.size() != first.reduce_float_by_size.size() ||
        m.copy.bytes != first.copy.bytes)
      throw InvalidArgument(differ(sources, i, "local timings (dtypes, sizes or --reduce-bytes)"));
    for (std::size_t k = 0; k < m.reduce.size(); ++k)
      if (m.reduce[k].first != first.reduce[k].first || m.reduce[k].second.bytes != first.reduce[k].second.bytes)
        throw InvalidArgument(differ(sources, i, "local timings (dtypes, sizes or --reduce-bytes)"));
    for (std::size_t k = 0; k < m.reduce_float_by_size.size(); ++k)
      if (m.reduce_float_by_size[k].bytes != first.reduce_float_by_size[k].bytes)
        throw InvalidArgument(differ(sources, i, "local timings (dtypes, sizes or --reduce-bytes)"));
  }
  if (launches.size() == 1) return first;

  Measurements c = first;
  c.launches = static_cast<int>(launches.size());
  c.sources = sources;
  for (std::size_t i = 0; i < c.messages.size(); ++i) {
    c.messages[i].pingpong = over_launches(launches, [&](const Measurements& m) -> const Spread& { return m.messages[i].pingpong; });
    for (std::size_t k = 0; k < c.patterns.size(); ++k)
      c.messages[i].patterns[k] =
          over_launches(launches, [&](const Measurements& m) -> const Spread& { return m.messages[i].patterns[k]; });
    if (c.messages[i].bidirectional_peer_read)
      c.messages[i].bidirectional_peer_read = over_launches(
          launches, [&](const Measurements& m) -> const Spread& { return *m.messages[i].bidirectional_peer_read; });
  }
  for (std::size_t k = 0; k < c.reduce.size(); ++k)
    c.reduce[k].second = combine_local(launches, [&](const Measurements& m) -> const LocalTimes& { return m.reduce[k].second; });
  for (std::size_t k = 0; k < c.reduce_float_by_size.size(); ++k)
    c.reduce_float_by_size[k] =
        combine_local(launches, [&](const Measurements& m) -> const LocalTimes& { return m.reduce_float_by_size[k]; });
  c.copy = combine_local(launches, [](const Measurements& m) -> const LocalTimes& { return m.copy; });
  return c;
}

Calibration fit_measurements(const Measurements& m, double tolerance, const std::string& platform_file) {
  Calibration c;
  std::vector<Point> lone;
  std::vector<ContendedPoint> contended;
  for (const MessageTimes& t : m.messages) {
    lone.push_back({static_cast<double>(t.bytes), t.pingpong.median});
    for (std::size_t k = 0; k < m.patterns.size(); ++k)
      contended.push_back({static_cast<double>(t.bytes), t.patterns[k].median, m.patterns[k].flows,
                           m.patterns[k].flows_per_host});
  }
  // The simulator charges a reduce of n bytes 3n / memory_bandwidth: float's throughput with
  // every rank reducing at once (as in a collective's steps) gives the one number it can carry.
  const auto float_at = std::find_if(m.reduce.begin(), m.reduce.end(), [](const auto& r) { return r.first == "float"; });
  if (float_at == m.reduce.end()) throw InvalidArgument("calibration: no float reduce timing");
  const double float_all = float_at->second.bytes / float_at->second.all_ranks.median;
  c.fit = fit_piecewise(lone, tolerance);
  c.model = model_from_pingpong(m.ranks, c.fit, lone.back().bytes, 3 * float_all);
  // Each swept size's throughput relative to float_all, smoothed over neighbouring sizes.
  const std::vector<LocalTimes>& sizes = m.reduce_float_by_size;
  std::vector<double> factors;
  std::vector<std::size_t> reduce_bytes;
  // A received-operands reduce of n bytes is the step of a collective over a 2n-byte buffer
  // (the rank sends one half and reduces into the other; calibrate_measure.hpp), and the
  // simulator looks memory factors up at the collective's footprint: so its factor is written
  // at 2n. A hot reduce's at n (reports from before ddlcalibrate timed received operands).
  const std::size_t footprint_per_byte = m.by_size_operands == "received" ? 2 : 1;
  for (const LocalTimes& t : sizes) {
    factors.push_back(t.bytes / t.all_ranks.median / float_all);
    reduce_bytes.push_back(footprint_per_byte * t.bytes);
  }
  factors = median_of_neighbours(factors);
  c.model.memory_factors = factor_string(reduce_bytes, factors);
  // Peer-read factors: the ratios as measured (a ratio of two medians taken back to back is
  // steady, and its rise and fall spans a size or two: smoothing would cut the peak). Below 1 is
  // noise (the two exchanges differ only in the receive buffers' state) and is written as 1.
  const std::vector<double> peer_read_ratios = peer_read_ratio(m);
  std::vector<double> peer_read_factors;
  std::vector<std::size_t> message_bytes;
  for (std::size_t i = 0; i < peer_read_ratios.size(); ++i) {
    peer_read_factors.push_back(std::max(1.0, peer_read_ratios[i]));
    message_bytes.push_back(m.messages[i].bytes);
  }
  if (!peer_read_factors.empty()) c.model.peer_read_factors = factor_string(message_bytes, peer_read_factors);
  choose_capacities(c.model, contended);

  json& r = c.report;
  r["ranks"] = m.ranks;
  r["reps"] = m.reps;
  r["launches"] = m.launches;
  r["receive_buffers"] = m.receive_buffers;
  if (!m.sources.empty()) r["launch_reports"] = m.sources;
  r["fit_tolerance_pct"] = 100 * tolerance;
  json messages = json::array(), segments = json::array();
  std::vector<double> residuals;
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    const MessageTimes& t = m.messages[i];
    residuals.push_back(residual_pct(c.fit, lone[i]));
    json row = {{"bytes", t.bytes}, {"pingpong", spread_json(t.pingpong)}};
    row["pingpong"]["fit_s"] = evaluate(c.fit, lone[i].bytes);
    row["pingpong"]["fit_residual_pct"] = residuals.back();
    for (std::size_t k = 0; k < m.patterns.size(); ++k) {
      const ContendedPoint& p = contended[i * m.patterns.size() + k];
      json& cell = row[m.patterns[k].name] = spread_json(t.patterns[k]);
      cell["flows"] = p.flows;
      cell["flows_per_host"] = p.flows_per_host;
      cell["model_s"] = predict(c.model, p);
      cell["model_error_pct"] = 100 * (predict(c.model, p) - p.seconds) / p.seconds;
    }
    if (t.bidirectional_peer_read) {
      json& cell = row["bidirectional_peer_read"] = spread_json(*t.bidirectional_peer_read);
      cell["ratio"] = peer_read_ratios[i];
      cell["peer_read_factor"] = peer_read_factors[i];
    }
    messages.push_back(row);
  }
  for (const Segment& s : c.fit)
    segments.push_back({{"from_bytes", s.from_bytes}, {"latency_s", s.latency_s}, {"bandwidth_Bps", s.bandwidth()}});
  const Spread res = summarize(residuals);
  r["messages"] = messages;
  r["pingpong_fit"] = {{"segments", segments}, {"median_residual_pct", res.median}, {"max_residual_pct", res.max}};
  json reduce = json::object(), by_size = json::array();
  for (const auto& [dtype, t] : m.reduce) reduce[dtype] = local_json(t);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    by_size.push_back(local_json(sizes[i]));
    by_size.back()["memory_factor"] = factors[i];
  }
  r["reduce"] = reduce;
  r["reduce_float_by_size"] = by_size;
  r["reduce_float_by_size_operands"] = m.by_size_operands;
  r["copy"] = local_json(m.copy);
  r["platform"] = {{"file", platform_file},
                   {"route_latency_s", c.model.route_latency},
                   {"host_link_Bps", c.model.host_bandwidth},
                   {"bus_Bps", c.model.bus_bandwidth},
                   {"memory_bandwidth_Bps", c.model.memory_bandwidth}};
  json by_flows = json::array();
  for (const FlowCapacity& f : c.model.bus_by_flows)
    by_flows.push_back({{"flows", f.flows}, {"bus_Bps", f.bandwidth}});
  r["platform"]["bus_by_flows"] = by_flows;
  return c;
}

std::string summary_text(const Measurements& m, const Calibration& c, const std::string& report_file) {
  const json& r = c.report;
  std::string out;
  append(out, "ddlcalibrate: %d ranks, %d reps, sizes %s..%s", m.ranks, m.reps,
         harness::format_size(m.messages.front().bytes).c_str(), harness::format_size(m.messages.back().bytes).c_str());
  if (m.launches > 1) append(out, ", median over %d launches (iqr_%% across the launches)", m.launches);
  if (m.receive_buffers != "own") append(out, ", messages received into %s buffers", m.receive_buffers.c_str());
  append(out, "\n%10s %12s %8s %12s %8s", "bytes", "pingpong_us", "iqr_%", "fit_us", "resid_%");
  for (const PatternShape& p : m.patterns) append(out, " %14s_us %7s", p.name.c_str(), "model_%");
  const bool peer_read = m.messages.front().bidirectional_peer_read.has_value();
  if (peer_read) append(out, " %14s_us %7s", "bidir_peer_read", "ratio");
  out += "\n";
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    const json& row = r["messages"][i];
    append(out, "%10zu %12.3f %8.1f %12.3f %8.2f", m.messages[i].bytes, m.messages[i].pingpong.median * 1e6,
           m.messages[i].pingpong.iqr_pct(), row["pingpong"]["fit_s"].get<double>() * 1e6,
           row["pingpong"]["fit_residual_pct"].get<double>());
    for (std::size_t k = 0; k < m.patterns.size(); ++k)
      append(out, " %17.3f %7.1f", m.messages[i].patterns[k].median * 1e6,
             row[m.patterns[k].name]["model_error_pct"].get<double>());
    if (peer_read)
      append(out, " %17.3f %7.3f", m.messages[i].bidirectional_peer_read->median * 1e6,
             row["bidirectional_peer_read"]["ratio"].get<double>());
    out += "\n";
  }
  const json& fit = r["pingpong_fit"];
  append(out, "fit: %zu size range(s); residual vs medians: median %.2f %%, max %.2f %%\n", c.fit.size(),
         fit["median_residual_pct"].get<double>(), fit["max_residual_pct"].get<double>());
  for (const Segment& s : c.fit)
    append(out, "  from %zu B: latency %.3f us, bandwidth %.3f GB/s\n", s.from_bytes, s.latency_s * 1e6, s.bandwidth() / 1e9);
  if (peer_read) append(out, "peer-read factors (the ratios, at least 1): %s\n", c.model.peer_read_factors.c_str());
  append(out, "host link %.3f GB/s, bus %.3f GB/s", c.model.host_bandwidth / 1e9,
         c.model.bus_bandwidth / 1e9);
  for (const FlowCapacity& f : c.model.bus_by_flows)
    append(out, "%s %d flows %.3f",
           &f == &c.model.bus_by_flows.front() ? " (by flows in flight:" : ",", f.flows,
           f.bandwidth / 1e9);
  append(out, "%s, route latency %.3f us\n", c.model.bus_by_flows.empty() ? "" : ")",
         c.model.route_latency * 1e6);
  for (const auto& [dtype, t] : m.reduce)
    append(out, "reduce %-8s %zu B: alone %.2f GB/s, all ranks %.2f GB/s (result bytes)\n", dtype.c_str(), t.bytes,
           t.bytes / t.alone.median / 1e9, t.bytes / t.all_ranks.median / 1e9);
  for (const json& v : r["reduce_float_by_size"])
    append(out,
           "reduce float %zu B (%s operands): alone %.2f GB/s, all ranks %.2f GB/s, "
           "memory factor %.3f\n",
           v["bytes"].get<std::size_t>(), m.by_size_operands.c_str(),
           v["alone_Bps"].get<double>() / 1e9, v["all_ranks_Bps"].get<double>() / 1e9,
           v["memory_factor"].get<double>());
  append(out, "copy %zu B: alone %.2f GB/s, all ranks %.2f GB/s\n", m.copy.bytes, m.copy.bytes / m.copy.alone.median / 1e9,
         m.copy.bytes / m.copy.all_ranks.median / 1e9);
  append(out, "memory_bandwidth %.3f GB/s (3 x float, all ranks); wrote %s and %s\n", c.model.memory_bandwidth / 1e9,
         r["platform"]["file"].get<std::string>().c_str(), report_file.c_str());
  return out;
}

}  // namespace ddl::calibrate
