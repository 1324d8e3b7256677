// Fitting measurements into a platform model and a report (calibrate/report.hpp).
#include <algorithm>
#include <cstdio>

#include "algorithms/error.hpp"
#include "calibrate/patterns.hpp"
#include "calibrate/report.hpp"

namespace ddl::calibrate {
namespace {

using json = nlohmann::ordered_json;

json spread_json(const Spread& s) {
  return {{"median_s", s.median}, {"min_s", s.min}, {"q1_s", s.q1},
          {"q3_s", s.q3},         {"max_s", s.max}, {"iqr_pct", s.iqr_pct()}};
}

// Throughput of a local operation in result bytes per second (medians).
json local_json(const LocalTimes& t) {
  return {{"bytes", t.bytes},
          {"alone_Bps", t.bytes / t.alone.median},
          {"all_ranks_Bps", t.bytes / t.all_ranks.median},
          {"alone", spread_json(t.alone)},
          {"all_ranks", spread_json(t.all_ranks)}};
}

// Each value as the median of it and its two neighbours in size (at either end of the sweep,
// the lower of it and its one neighbour): on an oversubscribed machine one size now and then
// catches a descheduled rank (a single point 3x off between normal ones), while cache effects
// span several sizes.
std::vector<double> median_of_neighbours(const std::vector<double>& values) {
  std::vector<double> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::vector<double> near(
        values.begin() + static_cast<std::ptrdiff_t>(i ? i - 1 : i),
        values.begin() + static_cast<std::ptrdiff_t>(std::min(i + 2, values.size())));
    std::sort(near.begin(), near.end());
    out.push_back(near[(near.size() - 1) / 2]);
  }
  return out;
}

// "0:F0;B1:F1;...": factor i from bytes[i] on; the first one also covers everything below it.
std::string factor_string(const std::vector<std::size_t>& bytes,
                          const std::vector<double>& factors) {
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
  const auto own = std::find_if(m.patterns.begin(), m.patterns.end(),
                                [](const PatternShape& p) { return p.name == "bidirectional"; });
  if (own == m.patterns.end())
    throw InvalidArgument("calibration: a peer-read exchange without the bidirectional one");
  const std::size_t k = static_cast<std::size_t>(own - m.patterns.begin());
  for (const MessageTimes& t : m.messages)
    ratios.push_back(t.bidirectional_peer_read->median / t.patterns[k].median);
  return ratios;
}

json segments_json(const std::vector<Segment>& fit) {
  json segments = json::array();
  for (const Segment& s : fit)
    segments.push_back({{"from_bytes", s.from_bytes},
                        {"latency_s", s.latency_s},
                        {"bandwidth_Bps", s.bandwidth()}});
  return segments;
}

// The flows of a pattern between nodes through the busiest NIC, both directions together:
// from its flows on `t` (reports name the patterns of calibrate/patterns.hpp, so reports
// written before the duplex link was fitted give it too); a name it does not know, one way.
int duplex_flows_of(const NetworkShape& shape, const Topology& t) {
  try {
    const int n = nic_flows_both_ways(pattern_flows(parse_pattern(shape.name), t), t);
    return n > 0 ? n : shape.flows_per_nic;
  } catch (const InvalidArgument&) {
    return shape.flows_per_nic;
  }
}

// The same for the busiest pair of ranks (pair<a>-<b>); a name it does not know, one flow.
int pair_flows_of(const NetworkShape& shape, const Topology& t) {
  try {
    return std::max(1, pair_flows_both_ways(pattern_flows(parse_pattern(shape.name), t), t));
  } catch (const InvalidArgument&) {
    return 1;
  }
}

// The same for the busiest uplink (leaf<j>-duplex), when some flow crosses one; a name it does
// not know, 0 (one way).
int uplink_duplex_flows_of(const NetworkShape& shape, const Topology& t) {
  try {
    return uplink_flows_both_ways(pattern_flows(parse_pattern(shape.name), t), t);
  } catch (const InvalidArgument&) {
    return 0;
  }
}

// A class's lone-flow time at one size: the ping-pong's, or where the class measured
// nic_crossed (uplink_crossed between leaves), the slower of the two. A ping-pong's message leaves
// its direction idle while the reply travels; a NIC shaped by a token bucket (the emulated
// cluster's tbf) refills meanwhile and sends the next one at line rate: up to 2x the rate at 1-128
// KB there, which no collective's step sees. nic_crossed keeps both directions busy back to back,
// as a ring step across nodes does, and runs at the rate (two flows one way then take its double,
// where they took 4x a ping-pong message; calibrate/README.md). On a NIC without a bucket the two
// agree.
double lone_flow_seconds(const ClassMessages& c, const MessageTimes& t) {
  for (std::size_t k = 0; k < c.patterns.size(); ++k)
    if (c.patterns[k].name == to_string(Pattern::nic_crossed) ||
        c.patterns[k].name == to_string(Pattern::uplink_crossed))
      return std::max(t.pingpong.median, t.patterns[k].median);
  return t.pingpong.median;
}

// The classes between nodes: each one's lone-flow fit, then the links (fit_network), then the
// report's "network" object (per class: every row beside its fit and the model).
json fit_network_classes(const Measurements& m, double tolerance, PlatformModel& model) {
  std::vector<ClassPingpong> lone;
  std::vector<NetworkPoint> points;
  for (const ClassMessages& c : m.network) {
    std::vector<Point> pts;
    for (const MessageTimes& t : c.messages) {
      pts.push_back({static_cast<double>(t.bytes), lone_flow_seconds(c, t)});
      for (std::size_t k = 0; k < c.patterns.size(); ++k)
        points.push_back({c.link_class, static_cast<double>(t.bytes), t.patterns[k].median,
                          c.patterns[k].flows_per_nic, c.patterns[k].flows_per_uplink,
                          duplex_flows_of(c.patterns[k], m.topology),
                          pair_flows_of(c.patterns[k], m.topology),
                          uplink_duplex_flows_of(c.patterns[k], m.topology)});
    }
    lone.push_back({c.link_class, fit_piecewise(pts, tolerance), pts.back().bytes, pts});
  }
  model.network = fit_network(m.topology, lone, points);
  json network = json::object();
  std::size_t next_point = 0;
  for (std::size_t n = 0; n < m.network.size(); ++n) {
    const ClassMessages& c = m.network[n];
    const std::vector<Segment>& fit = lone[n].pingpong;
    json rows = json::array();
    std::vector<double> residuals;
    for (const MessageTimes& t : c.messages) {
      const Point p{static_cast<double>(t.bytes), lone_flow_seconds(c, t)};
      residuals.push_back(residual_pct(fit, p));
      json row = {{"bytes", t.bytes}, {"pingpong", spread_json(t.pingpong)}};
      row["pingpong"]["lone_flow_s"] = p.seconds;
      row["pingpong"]["fit_s"] = evaluate(fit, p.bytes);
      row["pingpong"]["fit_residual_pct"] = residuals.back();
      for (std::size_t k = 0; k < c.patterns.size(); ++k) {
        const NetworkPoint& q = points[next_point++];
        json& cell = row[c.patterns[k].name] = spread_json(t.patterns[k]);
        cell["flows_per_nic"] = q.flows_per_nic;
        cell["flows_per_uplink"] = q.flows_per_uplink;
        cell["flows_per_duplex"] = duplex_flows(q);
        cell["flows_per_pair"] = std::max(q.flows_per_pair, 1);
        cell["flows_per_uplink_duplex"] = q.flows_per_uplink_duplex;
        cell["model_s"] = predict(*model.network, q);
        cell["model_error_pct"] = 100 * (predict(*model.network, q) - q.seconds) / q.seconds;
      }
      rows.push_back(row);
    }
    const Spread res = summarize(residuals);
    network[to_string(c.link_class)] = {{"messages", rows},
                                        {"pingpong_fit",
                                         {{"segments", segments_json(fit)},
                                          {"median_residual_pct", res.median},
                                          {"max_residual_pct", res.max}}}};
  }
  return network;
}

}  // namespace

Calibration fit_measurements(const Measurements& m, double tolerance,
                             const std::string& platform_file) {
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
  const auto float_at = std::find_if(m.reduce.begin(), m.reduce.end(),
                                     [](const auto& r) { return r.first == "float"; });
  if (float_at == m.reduce.end()) throw InvalidArgument("calibration: no float reduce timing");
  const double float_all = float_at->second.bytes / float_at->second.all_ranks.median;
  c.fit = fit_piecewise(lone, tolerance);
  c.model = model_from_pingpong(m.ranks, c.fit, lone.back().bytes, 3 * float_all);
  // Each swept size's throughput relative to float_all, smoothed over neighbouring sizes.
  const std::vector<LocalTimes>& sizes = m.reduce_float_by_size;
  std::vector<double> factors;
  std::vector<std::size_t> reduce_bytes;
  // A received-operands reduce of n bytes is the step of a collective over a 2n-byte buffer
  // (the rank sends one half and reduces into the other; calibrate/measure.hpp), and the
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
  if (!peer_read_factors.empty())
    c.model.peer_read_factors = factor_string(message_bytes, peer_read_factors);
  choose_capacities(c.model, contended);
  const json network = m.network.empty() ? json() : fit_network_classes(m, tolerance, c.model);

  json& r = c.report;
  r["ranks"] = m.ranks;
  r["reps"] = m.reps;
  r["launches"] = m.launches;
  r["receive_buffers"] = m.receive_buffers;
  if (m.topology.nodes() > 1)
    r["topology"] = {{"ranks_per_node", m.topology.ranks_per_node},
                     {"nodes_per_leaf", m.topology.nodes_per_leaf},
                     {"leaves", m.topology.leaves}};
  // Rails only: one NIC per node stays unwritten, so those reports are as before (read as 1).
  if (m.topology.nics > 1) r["topology"]["nics"] = m.topology.nics;
  if (!m.sources.empty()) r["launch_reports"] = m.sources;
  r["fit_tolerance_pct"] = 100 * tolerance;
  json messages = json::array();
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
  const Spread res = summarize(residuals);
  r["messages"] = messages;
  r["pingpong_fit"] = {{"segments", segments_json(c.fit)},
                       {"median_residual_pct", res.median},
                       {"max_residual_pct", res.max}};
  if (!m.network.empty()) r["network"] = network;
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
  if (c.model.network) {
    const NetworkModel& n = *c.model.network;
    r["platform"]["nic_Bps"] = n.nic_bandwidth;
    r["platform"]["nic_latency_s"] = n.nic_latency;
    if (!n.duplex_by_flows.empty()) {
      json duplex = json::array();
      for (const DuplexFactor& d : n.duplex_by_flows)
        duplex.push_back(
            {{"flows", d.flows}, {"factor", d.factor}, {"duplex_Bps", n.nic_bandwidth * d.factor}});
      r["platform"]["duplex_by_flows"] = duplex;
    }
    if (m.topology.leaf_switches() > 1) {
      r["platform"]["uplink_Bps"] = n.uplink_bandwidth;
      r["platform"]["uplink_latency_s"] = n.uplink_latency;
    }
    for (const ClassFit& f : n.classes)
      r["platform"][std::string(to_string(f.link_class)) + "_route"] = {
          {"latency_s", f.route_latency}, {"bottleneck_Bps", f.bottleneck}};
  }
  return c;
}

}  // namespace ddl::calibrate
