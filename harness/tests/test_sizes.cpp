#include <catch2/catch.hpp>

#include "algorithms/error.hpp"
#include "harness/sizes.hpp"

using namespace ddl::harness;

TEST_CASE("sizes parse as powers of 1024", "[harness]") {
  CHECK(parse_size("8") == 8);
  CHECK(parse_size("0") == 0);
  CHECK(parse_size("64K") == 65536);
  CHECK(parse_size("64k") == 65536);
  CHECK(parse_size("64KB") == 65536);
  CHECK(parse_size("1M") == 1048576);
  CHECK(parse_size("256M") == 268435456);
  CHECK(parse_size("1G") == 1073741824);
  CHECK(parse_size("3G") == 3221225472ULL);  // over 2 GiB: sizes are size_t
  CHECK(parse_size("100B") == 100);
}

TEST_CASE("bad size strings are rejected quoting the input", "[harness]") {
  for (const char* bad : {"", "K", "12Q", "1.5M", "-1", "1MM", " 8", "99999999999999999999"}) {
    INFO(bad);
    try {
      parse_size(bad);
      FAIL("accepted");
    } catch (const ddl::InvalidArgument& e) {
      CHECK(std::string(e.what()).find("'" + std::string(bad) + "'") != std::string::npos);
    }
  }
  CHECK_THROWS_AS(parse_size("17179869184G"), ddl::InvalidArgument);  // 2^34 G overflows
}

TEST_CASE("format_size is the shortest exact spelling", "[harness]") {
  CHECK(format_size(0) == "0");
  CHECK(format_size(8) == "8");
  CHECK(format_size(1000) == "1000");
  CHECK(format_size(65536) == "64K");
  CHECK(format_size(3 << 20) == "3M");
  CHECK(format_size(1536) == "1536");
  for (std::size_t s : {1ul, 1024ul, 1ul << 30, 12345ul}) CHECK(parse_size(format_size(s)) == s);
}

TEST_CASE("size sweep multiplies up to and including max", "[harness]") {
  CHECK(size_sweep(8, 64, 2) == std::vector<std::size_t>{8, 16, 32, 64});
  CHECK(size_sweep(8, 100, 2) == std::vector<std::size_t>{8, 16, 32, 64});
  CHECK(size_sweep(1, 1000, 10) == std::vector<std::size_t>{1, 10, 100, 1000});
  CHECK(size_sweep(5, 5, 1) == std::vector<std::size_t>{5});
  CHECK(size_sweep(0, 0, 2) == std::vector<std::size_t>{0});
  CHECK(size_sweep(8, 256ul << 20, 2).size() == 26);
  const std::size_t big = ~std::size_t{0};
  CHECK(size_sweep(big / 2, big, 2).size() == 2);  // no overflow past the end
}

TEST_CASE("bad sweeps name the flags", "[harness]") {
  CHECK_THROWS_WITH(size_sweep(64, 8, 2),
                    Catch::Contains("--minbytes") && Catch::Contains("--maxbytes"));
  CHECK_THROWS_WITH(size_sweep(8, 64, 1), Catch::Contains("--stepfactor"));
  CHECK_THROWS_WITH(size_sweep(0, 64, 2), Catch::Contains("--minbytes"));
}
