// The platform precheck (sim/platform_precheck.hpp): deep element nesting is refused before
// SimGrid's XML lexer sees it (~450 nested zones overflow its heap buffer: exit 134).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "algorithms/error.hpp"
#include "sim/platform_precheck.hpp"

using ddl::sim::check_platform_nesting;
using ddl::sim::xml_nesting_depth;

namespace {

// <platform><zone>... depth levels ...</zone></platform>, one element per line.
std::string nested_zones(std::size_t zones) {
  std::string xml =
      "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      "<platform version=\"4.1\">\n";
  for (std::size_t i = 0; i < zones; ++i)
    xml += "<zone id=\"z" + std::to_string(i) + "\" routing=\"Full\">\n";
  xml += "<host id=\"h\" speed=\"1f\"/>\n";
  for (std::size_t i = 0; i < zones; ++i) xml += "</zone>\n";
  return xml + "</platform>\n";
}

}  // namespace

TEST_CASE("xml nesting depth counts elements, not comments or attribute text", "[sim][precheck]") {
  CHECK(xml_nesting_depth("", 64) == 0);
  CHECK(xml_nesting_depth("<a/>", 64) == 1);
  CHECK(xml_nesting_depth("<a><b><c/></b></a>", 64) == 3);
  CHECK(xml_nesting_depth("<a><b></b><b></b></a>", 64) == 2);
  CHECK(xml_nesting_depth("<?xml version='1.0'?><!-- <x><y><z> --><a k=\"<b><c>\" j='>'/>", 64) ==
        1);
  CHECK(xml_nesting_depth("<!DOCTYPE p [ <!ENTITY e \"<q>\"> ]><p><![CDATA[<r><s>]]></p>", 64) ==
        1);
  std::size_t line = 0;
  CHECK(xml_nesting_depth("<a>\n<b>\n<c>\n</c></b></a>", 64, &line) == 3);
  CHECK(line == 3);
  CHECK(xml_nesting_depth(nested_zones(500), 64) == 65);  // stops counting past the limit
  CHECK(xml_nesting_depth(nested_zones(10), 64) == 12);   // platform + 10 zones + host
}

TEST_CASE("a platform nested 500 zones deep is refused naming file and depth", "[sim][precheck]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("ddl_deep_" + std::to_string(::getpid()) + ".xml"))
          .string();
  std::ofstream(path) << nested_zones(500);
  try {
    check_platform_nesting(path);
    FAIL("accepted");
  } catch (const ddl::InvalidArgument& e) {
    CHECK(std::string(e.what()) ==
          "platform file '" + path +
              "': elements nest 65 or more deep (at line 67), more than the 64 accepted: SimGrid's "
              "XML parser "
              "overflows on deep nesting, and no real platform nests more than a few zones");
  }
  std::ofstream(path) << nested_zones(62);  // platform + 62 zones + host = 64: accepted
  CHECK_NOTHROW(check_platform_nesting(path));
  std::filesystem::remove(path);
  CHECK_NOTHROW(check_platform_nesting("/nonexistent/none.xml"));  // load_platform names it
}

TEST_CASE("every shipped platform passes the precheck", "[sim][precheck]") {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(DDL_PLATFORMS))
    if (entry.path().extension() == ".xml") {
      INFO(entry.path());
      CHECK_NOTHROW(check_platform_nesting(entry.path().string()));
      ++files;
    }
  CHECK(files > 3);
}
