#include "calibrate/summary.hpp"

#include <cstdarg>
#include <cstdio>

#include "harness/sizes.hpp"

namespace ddl::calibrate {
namespace {

using json = nlohmann::ordered_json;

void append(std::string& out, const char* format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  out += line;
}

// Per class between nodes: its rows (ping-pong beside the fit, each pattern beside the model),
// its size ranges, then the links.
std::string network_summary(const Measurements& m, const Calibration& c) {
  std::string out;
  const NetworkModel& n = *c.model.network;
  for (const ClassMessages& cls : m.network) {
    const char* name = to_string(cls.link_class);
    const json& rows = c.report["network"][name]["messages"];
    append(out, "%s class (rank 0 with rank %d), sizes %s..%s\n", name,
           m.topology.pingpong_peer(cls.link_class),
           harness::format_size(cls.messages.front().bytes).c_str(),
           harness::format_size(cls.messages.back().bytes).c_str());
    // lone_us: what the fit follows (the ping-pong, or the slower of it and nic_crossed).
    append(out, "%10s %12s %8s %12s %12s %8s", "bytes", "pingpong_us", "iqr_%", "lone_us", "fit_us",
           "resid_%");
    for (const NetworkShape& p : cls.patterns)
      append(out, " %18s_us %7s", p.name.c_str(), "model_%");
    out += "\n";
    for (std::size_t i = 0; i < cls.messages.size(); ++i) {
      const MessageTimes& t = cls.messages[i];
      append(out, "%10zu %12.3f %8.1f %12.3f %12.3f %8.2f", t.bytes, t.pingpong.median * 1e6,
             t.pingpong.iqr_pct(), rows[i]["pingpong"]["lone_flow_s"].get<double>() * 1e6,
             rows[i]["pingpong"]["fit_s"].get<double>() * 1e6,
             rows[i]["pingpong"]["fit_residual_pct"].get<double>());
      for (std::size_t k = 0; k < cls.patterns.size(); ++k)
        append(out, " %21.3f %7.1f", t.patterns[k].median * 1e6,
               rows[i][cls.patterns[k].name]["model_error_pct"].get<double>());
      out += "\n";
    }
    for (const Segment& s : n.of(cls.link_class).pingpong)
      append(out, "  from %zu B: latency %.3f us, bandwidth %.6f GB/s\n", s.from_bytes,
             s.latency_s * 1e6, s.bandwidth() / 1e9);
  }
  append(out, "NIC %.6f GB/s, latency %.3f us", n.nic_bandwidth / 1e9, n.nic_latency * 1e6);
  if (m.topology.leaf_switches() > 1)
    append(out, "; uplink %.6f GB/s (%.3f NICs' worth), latency %.3f us", n.uplink_bandwidth / 1e9,
           n.uplink_bandwidth / n.nic_bandwidth, n.uplink_latency * 1e6);
  for (const DuplexFactor& d : n.duplex_by_flows)
    append(out, "%s %d flows %.3f",
           &d == &n.duplex_by_flows.front() ? "; both ways at once (duplex, NICs' worth by flows:"
                                            : ",",
           d.flows, d.factor);
  if (!n.duplex_by_flows.empty()) out += ")";
  if (n.pair_factor > 0)
    append(out, "; one pair of ranks both ways at once (pair link, %.3f NICs' worth)",
           n.pair_factor);
  if (n.uplink_duplex_factor > 0)
    append(out, "; an uplink both ways at once (leaf duplex, %.3f NICs' worth)",
           n.uplink_duplex_factor);
  append(out, "; topology %d ranks per node x %d nodes per leaf x %d leaves",
         m.topology.ranks_per_node, m.topology.nodes_per_leaf, m.topology.leaves);
  if (m.topology.nics > 1) append(out, ", %d NICs per node (rails)", m.topology.nics);
  out += "\n";
  return out;
}

}  // namespace

std::string summary_text(const Measurements& m, const Calibration& c,
                         const std::string& report_file) {
  const json& r = c.report;
  std::string out;
  append(out, "ddlcalibrate: %d ranks, %d reps, sizes %s..%s", m.ranks, m.reps,
         harness::format_size(m.messages.front().bytes).c_str(),
         harness::format_size(m.messages.back().bytes).c_str());
  if (m.launches > 1)
    append(out, ", median over %d launches (iqr_%% across the launches)", m.launches);
  if (m.receive_buffers != "own")
    append(out, ", messages received into %s buffers", m.receive_buffers.c_str());
  append(out, "\n%10s %12s %8s %12s %8s", "bytes", "pingpong_us", "iqr_%", "fit_us", "resid_%");
  for (const PatternShape& p : m.patterns) append(out, " %14s_us %7s", p.name.c_str(), "model_%");
  const bool peer_read = m.messages.front().bidirectional_peer_read.has_value();
  if (peer_read) append(out, " %14s_us %7s", "bidir_peer_read", "ratio");
  out += "\n";
  for (std::size_t i = 0; i < m.messages.size(); ++i) {
    const json& row = r["messages"][i];
    append(out, "%10zu %12.3f %8.1f %12.3f %8.2f", m.messages[i].bytes,
           m.messages[i].pingpong.median * 1e6, m.messages[i].pingpong.iqr_pct(),
           row["pingpong"]["fit_s"].get<double>() * 1e6,
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
  append(out, "fit: %zu size range(s); residual vs medians: median %.2f %%, max %.2f %%\n",
         c.fit.size(), fit["median_residual_pct"].get<double>(),
         fit["max_residual_pct"].get<double>());
  for (const Segment& s : c.fit)
    append(out, "  from %zu B: latency %.3f us, bandwidth %.3f GB/s\n", s.from_bytes,
           s.latency_s * 1e6, s.bandwidth() / 1e9);
  if (peer_read)
    append(out, "peer-read factors (the ratios, at least 1): %s\n",
           c.model.peer_read_factors.c_str());
  append(out, "host link %.3f GB/s, bus %.3f GB/s", c.model.host_bandwidth / 1e9,
         c.model.bus_bandwidth / 1e9);
  for (const FlowCapacity& f : c.model.bus_by_flows)
    append(out, "%s %d flows %.3f",
           &f == &c.model.bus_by_flows.front() ? " (by flows in flight:" : ",", f.flows,
           f.bandwidth / 1e9);
  append(out, "%s, route latency %.3f us\n", c.model.bus_by_flows.empty() ? "" : ")",
         c.model.route_latency * 1e6);
  if (c.model.network) out += network_summary(m, c);
  for (const auto& [dtype, t] : m.reduce)
    append(out, "reduce %-8s %zu B: alone %.2f GB/s, all ranks %.2f GB/s (result bytes)\n",
           dtype.c_str(), t.bytes, t.bytes / t.alone.median / 1e9,
           t.bytes / t.all_ranks.median / 1e9);
  for (const json& v : r["reduce_float_by_size"])
    append(out,
           "reduce float %zu B (%s operands): alone %.2f GB/s, all ranks %.2f GB/s, "
           "memory factor %.3f\n",
           v["bytes"].get<std::size_t>(), m.by_size_operands.c_str(),
           v["alone_Bps"].get<double>() / 1e9, v["all_ranks_Bps"].get<double>() / 1e9,
           v["memory_factor"].get<double>());
  append(out, "copy %zu B: alone %.2f GB/s, all ranks %.2f GB/s\n", m.copy.bytes,
         m.copy.bytes / m.copy.alone.median / 1e9, m.copy.bytes / m.copy.all_ranks.median / 1e9);
  append(out, "memory_bandwidth %.3f GB/s (3 x float, all ranks); wrote %s and %s\n",
         c.model.memory_bandwidth / 1e9, r["platform"]["file"].get<std::string>().c_str(),
         report_file.c_str());
  return out;
}

}  // namespace ddl::calibrate
