// Reading reports back and combining launches (calibrate/report.hpp).
#include <algorithm>
#include <functional>

#include "algorithms/error.hpp"
#include "calibrate/report.hpp"

namespace ddl::calibrate {
namespace {

using json = nlohmann::ordered_json;

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

LocalTimes read_local(const json& j) {
  return {j.at("bytes").get<std::size_t>(), read_spread(j.at("alone")),
          read_spread(j.at("all_ranks"))};
}

// Message rows: bytes, pingpong, an optional bidirectional_peer_read, and one object per
// pattern, in the order the report has them; `shapes` is filled from the first row and every
// other row must name the same patterns. `read_shape(name, cell)` reads a pattern's shape.
template <typename Shape, typename ReadShape>
std::vector<MessageTimes> read_rows(const json& rows, std::vector<Shape>& shapes,
                                    ReadShape&& read_shape) {
  std::vector<MessageTimes> messages;
  for (const json& row : rows) {
    MessageTimes t;
    t.bytes = row.at("bytes").get<std::size_t>();
    t.pingpong = read_spread(row.at("pingpong"));
    if (row.contains("bidirectional_peer_read"))
      t.bidirectional_peer_read = read_spread(row.at("bidirectional_peer_read"));
    if (!messages.empty() && t.bidirectional_peer_read.has_value() !=
                                 messages.front().bidirectional_peer_read.has_value())
      throw InvalidArgument("only some message rows have bidirectional_peer_read");
    for (const auto& [key, value] : row.items()) {
      if (key == "bytes" || key == "pingpong" || key == "bidirectional_peer_read") continue;
      if (messages.empty()) shapes.push_back(read_shape(key, value));
      const std::size_t k = t.patterns.size();
      if (k >= shapes.size() || shapes[k].name != key)
        throw InvalidArgument("message rows name different patterns");
      t.patterns.push_back(read_spread(value));
    }
    if (t.patterns.size() != shapes.size())
      throw InvalidArgument("message rows name different patterns");
    if (!messages.empty() && t.bytes <= messages.back().bytes)
      throw InvalidArgument("message sizes do not increase");
    messages.push_back(std::move(t));
  }
  if (messages.size() < 2) throw InvalidArgument("fewer than 2 message sizes");
  return messages;
}

Topology read_topology(const json& r, int ranks) {
  if (!r.contains("topology")) return {ranks, 1, 1};
  const json& j = r.at("topology");
  // Reports from before rails (and of one NIC per node) have no "nics": one NIC.
  Topology t{j.at("ranks_per_node").get<int>(), j.at("nodes_per_leaf").get<int>(),
             j.at("leaves").get<int>(), j.value("nics", 1)};
  if (t.ranks_per_node < 1 || t.nodes_per_leaf < 1 || t.leaves < 1 || t.ranks() != ranks)
    throw InvalidArgument("its topology does not hold its " + std::to_string(ranks) + " ranks");
  if (t.nics < 1 || t.ranks_per_node % t.nics != 0)
    throw InvalidArgument("its topology's nics " + std::to_string(t.nics) +
                          " does not divide its " + std::to_string(t.ranks_per_node) +
                          " ranks per node");
  return t;
}

// Spread of the launches' medians of one point.
Spread over_launches(const std::vector<Measurements>& launches,
                     const std::function<const Spread&(const Measurements&)>& at) {
  std::vector<double> medians;
  for (const Measurements& m : launches) medians.push_back(at(m).median);
  return summarize(std::move(medians));
}

LocalTimes combine_local(const std::vector<Measurements>& launches,
                         const std::function<const LocalTimes&(const Measurements&)>& at) {
  return {
      at(launches.front()).bytes,
      over_launches(launches, [&](const Measurements& m) -> const Spread& { return at(m).alone; }),
      over_launches(launches,
                    [&](const Measurements& m) -> const Spread& { return at(m).all_ranks; })};
}

// Every point of `rows(m)` (message rows of one kind) as its median over the launches.
void combine_rows(
    std::vector<MessageTimes>& out, const std::vector<Measurements>& launches,
    const std::function<const std::vector<MessageTimes>&(const Measurements&)>& rows) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].pingpong = over_launches(
        launches, [&](const Measurements& m) -> const Spread& { return rows(m)[i].pingpong; });
    for (std::size_t k = 0; k < out[i].patterns.size(); ++k)
      out[i].patterns[k] = over_launches(
          launches, [&](const Measurements& m) -> const Spread& { return rows(m)[i].patterns[k]; });
    if (out[i].bidirectional_peer_read)
      out[i].bidirectional_peer_read =
          over_launches(launches, [&](const Measurements& m) -> const Spread& {
            return *rows(m)[i].bidirectional_peer_read;
          });
  }
}

bool same_sizes(const std::vector<MessageTimes>& a, const std::vector<MessageTimes>& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](const MessageTimes& x, const MessageTimes& y) {
                                              return x.bytes == y.bytes;
                                            });
}

std::string differ(const std::vector<std::string>& sources, std::size_t i,
                   const std::string& what) {
  return "calibration reports '" + sources.front() + "' and '" + sources[i] + "' differ in " +
         what + ": combine only launches of the same ddlcalibrate command";
}

// The checks of combine() that concern the classes between nodes.
void check_same_network(const Measurements& first, const Measurements& m,
                        const std::vector<std::string>& sources, std::size_t i) {
  if (!(m.topology == first.topology))
    throw InvalidArgument(differ(sources, i, "topology (nodes, leaves)"));
  if (m.network.size() != first.network.size())
    throw InvalidArgument(differ(sources, i, "link classes"));
  for (std::size_t c = 0; c < m.network.size(); ++c) {
    const ClassMessages &a = first.network[c], &b = m.network[c];
    const std::string what = std::string(to_string(a.link_class)) + " messages";
    if (a.link_class != b.link_class) throw InvalidArgument(differ(sources, i, "link classes"));
    if (!same_sizes(a.messages, b.messages))
      throw InvalidArgument(differ(sources, i, what + "' sizes"));
    if (a.patterns.size() != b.patterns.size() ||
        !std::equal(a.patterns.begin(), a.patterns.end(), b.patterns.begin(),
                    [](const NetworkShape& x, const NetworkShape& y) {
                      return x.name == y.name && x.flows_per_nic == y.flows_per_nic &&
                             x.flows_per_uplink == y.flows_per_uplink;
                    }))
      throw InvalidArgument(differ(sources, i, what + "' patterns"));
  }
}

}  // namespace

Measurements read_report(const json& r, const std::string& source) {
  try {
    Measurements m;
    m.ranks = r.at("ranks").get<int>();
    m.reps = r.at("reps").get<int>();
    m.launches = r.contains("launches") ? r.at("launches").get<int>() : 1;
    m.receive_buffers =
        r.contains("receive_buffers") ? r.at("receive_buffers").get<std::string>() : "own";
    if (m.ranks < 2 || m.reps < 1 || m.launches < 1)
      throw InvalidArgument("ranks, reps or launches out of range");
    m.topology = read_topology(r, m.ranks);
    m.messages =
        read_rows(r.at("messages"), m.patterns, [](const std::string& name, const json& cell) {
          return PatternShape{name, cell.at("flows").get<int>(),
                              cell.at("flows_per_host").get<int>()};
        });
    if (r.contains("network"))
      for (const auto& [name, value] : r.at("network").items()) {
        ClassMessages c;
        c.link_class = parse_link_class(name);
        c.messages = read_rows(value.at("messages"), c.patterns,
                               [](const std::string& pattern, const json& cell) {
                                 return NetworkShape{pattern, cell.at("flows_per_nic").get<int>(),
                                                     cell.at("flows_per_uplink").get<int>()};
                               });
        m.network.push_back(std::move(c));
      }
    std::vector<LinkClass> expected = m.topology.classes(), found;
    expected.erase(std::remove(expected.begin(), expected.end(), LinkClass::node), expected.end());
    for (const ClassMessages& c : m.network) found.push_back(c.link_class);
    if (found != expected)
      throw InvalidArgument("its network classes are not those of its topology");
    for (const auto& [dtype, value] : r.at("reduce").items())
      m.reduce.emplace_back(dtype, read_local(value));
    for (const json& row : r.at("reduce_float_by_size"))
      m.reduce_float_by_size.push_back(read_local(row));
    m.by_size_operands = r.contains("reduce_float_by_size_operands")
                             ? r.at("reduce_float_by_size_operands").get<std::string>()
                             : "hot";
    m.copy = read_local(r.at("copy"));
    if (r.contains("launch_reports"))
      m.sources = r.at("launch_reports").get<std::vector<std::string>>();
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument("calibration report '" + source + "' is malformed: " + e.what());
  } catch (const InvalidArgument& e) {
    throw InvalidArgument("calibration report '" + source + "' is malformed: " + e.what());
  }
}

Measurements combine(const std::vector<Measurements>& launches,
                     const std::vector<std::string>& sources) {
  if (launches.empty()) throw InvalidArgument("no calibration reports to combine");
  if (sources.size() != launches.size())
    throw InvalidArgument("combine: one source name per report");
  const Measurements& first = launches.front();
  if (launches.size() > 1)
    for (std::size_t i = 0; i < launches.size(); ++i)
      if (launches[i].launches != 1)
        throw InvalidArgument(
            "calibration report '" + sources[i] +
            "' already combines launches: combine the launch reports it lists instead");
  for (std::size_t i = 1; i < launches.size(); ++i) {
    const Measurements& m = launches[i];
    if (m.ranks != first.ranks) throw InvalidArgument(differ(sources, i, "ranks"));
    check_same_network(first, m, sources, i);
    if (m.receive_buffers != first.receive_buffers)
      throw InvalidArgument(differ(sources, i, "receive buffers"));
    if (m.by_size_operands != first.by_size_operands)
      throw InvalidArgument(
          differ(sources, i, "the operands of the reduce sweep (hot or received)"));
    if (m.messages.front().bidirectional_peer_read.has_value() !=
        first.messages.front().bidirectional_peer_read.has_value())
      throw InvalidArgument(differ(sources, i, "whether the peer-read exchange was measured"));
    if (!same_sizes(m.messages, first.messages))
      throw InvalidArgument(differ(sources, i, "message sizes"));
    if (m.patterns.size() != first.patterns.size() ||
        !std::equal(m.patterns.begin(), m.patterns.end(), first.patterns.begin(),
                    [](const PatternShape& a, const PatternShape& b) {
                      return a.name == b.name && a.flows == b.flows &&
                             a.flows_per_host == b.flows_per_host;
                    }))
      throw InvalidArgument(differ(sources, i, "message patterns"));
    const std::string local = "local timings (dtypes, sizes or --reduce-bytes)";
    if (m.reduce.size() != first.reduce.size() ||
        m.reduce_float_by_size.size() != first.reduce_float_by_size.size() ||
        m.copy.bytes != first.copy.bytes)
      throw InvalidArgument(differ(sources, i, local));
    for (std::size_t k = 0; k < m.reduce.size(); ++k)
      if (m.reduce[k].first != first.reduce[k].first ||
          m.reduce[k].second.bytes != first.reduce[k].second.bytes)
        throw InvalidArgument(differ(sources, i, local));
    for (std::size_t k = 0; k < m.reduce_float_by_size.size(); ++k)
      if (m.reduce_float_by_size[k].bytes != first.reduce_float_by_size[k].bytes)
        throw InvalidArgument(differ(sources, i, local));
  }
  if (launches.size() == 1) return first;

  Measurements c = first;
  c.launches = static_cast<int>(launches.size());
  c.sources = sources;
  combine_rows(c.messages, launches, [](const Measurements& m) -> const std::vector<MessageTimes>& {
    return m.messages;
  });
  for (std::size_t n = 0; n < c.network.size(); ++n)
    combine_rows(c.network[n].messages, launches,
                 [n](const Measurements& m) -> const std::vector<MessageTimes>& {
                   return m.network[n].messages;
                 });
  for (std::size_t k = 0; k < c.reduce.size(); ++k)
    c.reduce[k].second = combine_local(
        launches, [&](const Measurements& m) -> const LocalTimes& { return m.reduce[k].second; });
  for (std::size_t k = 0; k < c.reduce_float_by_size.size(); ++k)
    c.reduce_float_by_size[k] = combine_local(
        launches,
        [&](const Measurements& m) -> const LocalTimes& { return m.reduce_float_by_size[k]; });
  c.copy =
      combine_local(launches, [](const Measurements& m) -> const LocalTimes& { return m.copy; });
  return c;
}

}  // namespace ddl::calibrate
