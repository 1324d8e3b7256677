// The outline ddl reads with expat before SimGrid parses a platform (sim/platform_outline.hpp):
// SimGrid's units, zones and routes, without SimGrid.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "sim/platform_outline.hpp"

using ddl::sim::parse_quantity;
using ddl::sim::Quantity;

namespace {
double quantity(const std::string& text, Quantity kind) {
  double v = -1;
  REQUIRE(parse_quantity(text, kind, v));
  return v;
}
bool parses(const std::string& text, Quantity kind) {
  double v = 0;
  return parse_quantity(text, kind, v);
}
std::string fixture(const std::string& name) {
  return std::string(DDL_SIM_FIXTURES) + "/" + name;
}
}  // namespace

TEST_CASE("quantities take SimGrid 3.32's units and refuse the ones it refuses", "[sim][outline]") {
  CHECK(quantity("12.5GBps", Quantity::bandwidth) == 12.5e9);
  CHECK(quantity("8Gbps", Quantity::bandwidth) == 1e9);
  CHECK(quantity("1KiBps", Quantity::bandwidth) == 1024);
  CHECK(quantity("2TiBps", Quantity::bandwidth) == 2.0 * 1099511627776.0);
  CHECK(quantity("3e9", Quantity::bandwidth) == 3e9);  // no unit: bytes/s
  CHECK(quantity("1us", Quantity::time) == 1e-6);
  CHECK(quantity("2h", Quantity::time) == 7200);
  CHECK(quantity("1Gf", Quantity::speed) == 1e9);
  CHECK(quantity("5flops", Quantity::speed) == 5);
  CHECK(std::isnan(quantity("NaN", Quantity::bandwidth)));
  CHECK(quantity("-1us", Quantity::time) == -1e-6);
  // Refused by SimGrid 3.32 too (checked against the library): unknown unit or no number.
  for (const char* bad : {"1KBps", "1kiBps", "1mBps", "1e9 Bps", "fast", ""})
    CHECK_FALSE(parses(bad, Quantity::bandwidth));
  for (const char* bad : {"1Gflops", "1Kf", "1Mflop"}) CHECK_FALSE(parses(bad, Quantity::speed));
  for (const char* bad : {"1fs", "1min", "1sec"}) CHECK_FALSE(parses(bad, Quantity::time));
  // Refused by ddl where SimGrid's strtod would read hexadecimal: 0x10GBps is not 16 GB/s.
  for (const char* hex : {"0x10GBps", "0x10", "0X1p4Bps"})
    CHECK_FALSE(parses(hex, Quantity::bandwidth));
  CHECK_FALSE(parses("0x1us", Quantity::time));
}

TEST_CASE("platform figures outside what any machine has are refused naming the range",
          "[sim][outline]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ddl_range_" + std::to_string(::getpid()) + ".xml"))
                               .string();
  const auto link = [&](const std::string& bandwidth, const std::string& latency) {
    {
      std::ofstream out(path);
      out << "<?xml version=\"1.0\"?>\n<platform version=\"4.1\">\n<zone id=\"z\" "
             "routing=\"Full\">\n<link id=\"l\" bandwidth=\""
          << bandwidth << "\" latency=\"" << latency << "\"/>\n</zone>\n</platform>\n";
    }
    ddl::sim::read_platform_outline(path);
  };
  CHECK_NOTHROW(link("1Bps", "1h"));
  CHECK_NOTHROW(link("1PBps", "0s"));
  CHECK_THROWS_WITH(link("1e-300Bps", "1us"),
                    Catch::Contains("link 'l': bandwidth '1e-300Bps' is outside [1 B/s, 1 PB/s]"));
  CHECK_THROWS_WITH(link("2PBps", "1us"), Catch::Contains("'2PBps' is outside [1 B/s, 1 PB/s]"));
  CHECK_THROWS_WITH(link("1GBps", "2h"), Catch::Contains("latency '2h' is outside [0 s, 1 h]"));
  std::filesystem::remove(path);
}

TEST_CASE("the outline holds zones, members and routes both ways", "[sim][outline]") {
  const ddl::sim::PlatformOutline o = ddl::sim::read_platform_outline(fixture("plain_zone.xml"));
  REQUIRE(o.zones.size() == 1);
  CHECK(o.zones[0].id == "plain");
  CHECK(o.zones[0].routing == "Floyd");
  CHECK(o.zones[0].members == std::vector<std::string>{"b", "a", "c", "sw"});
  CHECK(o.zones[0].routes.size() == 6);  // three symmetrical routes
  CHECK(o.zones[0].routes.count({"sw", "a"}) == 1);
  const ddl::sim::PlatformOutline c = ddl::sim::read_platform_outline(fixture("cluster_16.xml"));
  REQUIRE(c.zones.size() == 1);
  CHECK(c.zones[0].routing == "Cluster");
  CHECK(c.zones[0].members.size() == 16);
  CHECK(c.zone_of.at("node-15") == 0);
}

TEST_CASE("bad values and duplicate routes are refused naming element and value",
          "[sim][outline]") {
  const auto refused = [](const std::string& file, const std::string& message) {
    try {
      ddl::sim::read_platform_outline(fixture(file));
      FAIL("no error for " << file);
    } catch (const ddl::InvalidArgument& e) {
      INFO(e.what());
      CHECK(std::string(e.what()).find(message) != std::string::npos);
    }
  };
  refused("bad_bw_zero.xml", "line 8: link 'ab': bandwidth '0GBps' is not a finite number > 0");
  refused("bad_latency_negative.xml", "link 'ab': latency '-1us'");
  refused("bad_speed_zero.xml", "host 'a': speed '0f'");
  refused("bad_cluster_bw.xml", "cluster 'c': bw '0Bps'");
  refused("bad_duplicate_route.xml", "a route from 'b' to 'a' is already declared there");
  refused("bad_routing.xml", "routing 'Star' is not one SimGrid 3.32 knows");
  // Not well-formed: left to SimGrid's parser, which raises an exception for it.
  CHECK(ddl::sim::read_platform_outline(fixture("malformed.xml")).zones.empty());
}

TEST_CASE("cluster radicals at the ends of long's range neither overflow nor loop",
          "[sim][outline]") {
  // Found by fuzz_platform_outline (UBSan: n + 1 past LONG_MAX in the loop over a radical's
  // range). A range ending at LONG_MAX is counted to its end and stops there; a number out of
  // long's range, or a range wider than long's difference can hold, is not counted.
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ddl_radical_" + std::to_string(::getpid()) + ".xml"))
                               .string();
  const auto outline = [&](const std::string& radical) {
    {
      std::ofstream out(path);
      out << "<?xml version=\"1.0\"?>\n<platform version=\"4.1\">\n  <cluster id=\"c\" "
             "prefix=\"n-\" "
             "suffix=\"\" radical=\""
          << radical << "\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n</platform>\n";
    }
    return ddl::sim::read_platform_outline(path).zones.at(0).members;
  };
  CHECK(outline("9223372036854775806-9223372036854775807") ==
        std::vector<std::string>{"n-9223372036854775806", "n-9223372036854775807"});
  CHECK(outline("99999999999999999999").empty());
  CHECK(outline("0-1,99999999999999999999") == std::vector<std::string>{"n-0", "n-1"});
  // The widest range is more hosts than ddlsim accepts: refused before any host is listed.
  CHECK_THROWS_WITH(outline("-9223372036854775808-9223372036854775807"),
                    Catch::Contains("more than 65536 hosts, the most ddlsim accepts"));
  std::filesystem::remove(path);
}

TEST_CASE("a platform of more hosts than ddlsim accepts is refused before SimGrid reads it",
          "[sim][outline]") {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("ddl_hosts_" + std::to_string(::getpid()) + ".xml"))
                               .string();
  const auto write = [&](const std::string& body) {
    std::ofstream out(path);
    out << "<?xml version=\"1.0\"?>\n<platform version=\"4.1\">\n" << body << "</platform>\n";
  };
  const auto cluster = [](const std::string& id, const std::string& radical) {
    return "<cluster id=\"" + id + "\" prefix=\"" + id + "-\" suffix=\"\" radical=\"" + radical +
           "\" speed=\"1Gf\" bw=\"1GBps\" lat=\"1us\"/>\n";
  };
  // Exactly the limit: read (65536 members); one more, in a second cluster or a plain host: not.
  write("<zone id=\"z\" routing=\"Full\">\n" + cluster("a", "0-32767") + cluster("b", "0-32767") +
        "</zone>\n");
  CHECK(ddl::sim::read_platform_outline(path).zone_of.size() == 65536 + 2);
  write("<zone id=\"z\" routing=\"Full\">\n" + cluster("a", "0-32767") + cluster("b", "0-32768") +
        "</zone>\n");
  CHECK_THROWS_WITH(ddl::sim::read_platform_outline(path),
                    Catch::Contains("line 5: more than 65536 hosts, the most ddlsim accepts"));
  write("<zone id=\"z\" routing=\"Full\">\n" + cluster("a", "0-65535") +
        "<host id=\"h\" speed=\"1Gf\"/>\n</zone>\n");
  CHECK_THROWS_WITH(ddl::sim::read_platform_outline(path), Catch::Contains("line 5: more than"));
  std::filesystem::remove(path);
}
