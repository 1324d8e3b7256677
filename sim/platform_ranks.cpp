#include "sim/platform_ranks.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <set>
#include <simgrid/s4u.hpp>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"
#include "sim/platform_outline.hpp"
#include "sim/switch_model.hpp"

namespace ddl::sim {

namespace {

std::string trim(const std::string& s) {
  const std::size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// SimGrid hosts are many more than anyone runs ranks on; this bounds a typo like host:10000000.
constexpr int kMaxRanksPerHost = 1 << 20;

}  // namespace

std::vector<HostfileLine> read_hostfile(const std::string& file) {
  check_readable(file, "--hostfile", std::uintmax_t{16} << 20);  // a line per host: a few MB
  std::ifstream in(file);
  if (!in) throw InvalidArgument("cannot read --hostfile '" + file + "'");
  std::vector<HostfileLine> lines;
  std::string text;
  for (std::size_t n = 1; std::getline(in, text); ++n) {
    const std::string t = trim(text);
    if (t.empty() || t[0] == '#') continue;
    const std::string where =
        "--hostfile '" + file + "' line " + std::to_string(n) + " '" + t + "'";
    HostfileLine l;
    l.line = n;
    const std::size_t colon = t.rfind(':');
    l.host = trim(t.substr(0, colon));
    if (colon != std::string::npos) {
      const std::string count = trim(t.substr(colon + 1));
      const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), l.ranks);
      if (count.empty() || ec != std::errc() || end != count.data() + count.size() || l.ranks < 1 ||
          l.ranks > kMaxRanksPerHost)
        throw InvalidArgument(where + ": '" + count +
                              "' is not a rank count (HOST:N, N from 1 to " +
                              std::to_string(kMaxRanksPerHost) + ")");
    }
    if (l.host.empty()) throw InvalidArgument(where + ": no host name");
    lines.push_back(l);
  }
  if (lines.empty()) throw InvalidArgument("--hostfile '" + file + "' names no host");
  return lines;
}

double parse_memory_bandwidth(const std::string& text) {
  double v = 0;
  const QuantityRange range = quantity_range(Quantity::bandwidth);
  if (!parse_quantity(text, Quantity::bandwidth, v) || !(v >= range.low && v <= range.high))
    throw InvalidArgument("bad --memory-bandwidth '" + text + "': give bytes/s in " + range.text +
                          ", e.g. 3.35e12 or 3350GBps");
  return v;
}

RankHosts choose_rank_hosts(simgrid::s4u::Engine& engine, const std::string& file,
                            const std::optional<std::string>& hostfile) {
  RankHosts r;
  if (!hostfile) {
    for (simgrid::s4u::Host* h : engine.get_all_hosts())
      if (!is_switch_host(h)) r.hosts.push_back(h);  // a switch's host runs no rank
    if (r.hosts.empty()) throw InvalidArgument("platform file '" + file + "' has no hosts");
    return r;
  }
  const std::vector<HostfileLine> lines = read_hostfile(*hostfile);
  std::set<std::string> distinct;
  for (const HostfileLine& l : lines) {
    simgrid::s4u::Host* h = engine.host_by_name_or_null(l.host);
    if (h == nullptr)
      throw InvalidArgument("--hostfile '" + *hostfile + "' line " + std::to_string(l.line) +
                            ": host '" + l.host + "' is not in platform file '" + file + "'");
    r.hosts.insert(r.hosts.end(), static_cast<std::size_t>(l.ranks), h);
    distinct.insert(l.host);
  }
  const int per_host = lines.front().ranks;
  bool uniform = distinct.size() == lines.size();
  for (const HostfileLine& l : lines) uniform = uniform && l.ranks == per_host;
  if (uniform && per_host > 1 && lines.size() > 1)
    r.natural_dims = Dims({per_host, static_cast<int>(lines.size())});
  return r;
}

}  // namespace ddl::sim
