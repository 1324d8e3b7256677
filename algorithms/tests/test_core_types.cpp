// Dims, dtypes and the reference kernels: the vocabulary every other test relies on.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "algorithms/dims.hpp"
#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "algorithms/types.hpp"

using namespace ddl;

TEST_CASE("dims parse, map ranks to coordinates and back", "[dims]") {
  const Dims d = Dims::parse("4x16x4");
  CHECK(d.extents() == std::vector<int>{4, 16, 4});
  CHECK(d.rank_count() == 256);
  CHECK(d.to_string() == "4x16x4");
  // First dimension innermost: rank = node * 4 + gpu.
  CHECK(d.coords(0) == std::vector<int>{0, 0, 0});
  CHECK(d.coords(5) == std::vector<int>{1, 1, 0});
  CHECK(d.coords(255) == std::vector<int>{3, 15, 3});
  for (int r = 0; r < 256; ++r) REQUIRE(d.rank_of(d.coords(r)) == r);
  CHECK(d.group(5, 0) == std::vector<int>{4, 5, 6, 7});
  CHECK(d.group(5, 2) == std::vector<int>{5, 69, 133, 197});
  CHECK(Dims::parse("7").extents() == std::vector<int>{7});
  CHECK(Dims::parse("4x1x2").group(3, 1) == std::vector<int>{3});
}

TEST_CASE("bad dims strings are errors that quote the input", "[dims]") {
  for (const char* bad : {"", "x", "4x", "x4", "4xx2", "4x-2", "4.5", "4*2", "abc", "4x0x2", "0"}) {
    INFO(bad);
    try {
      Dims::parse(bad);
      FAIL("no error for '" << bad << "'");
    } catch (const InvalidArgument& e) {
      CHECK(std::string(e.what()).find("'" + std::string(bad) + "'") != std::string::npos);
    }
  }
  CHECK_THROWS_WITH(Dims::parse("65536x65536"), Catch::Contains("'65536x65536'"));
  CHECK_THROWS_WITH(Dims::parse("4x4").require_world(8),
                    Catch::Contains("'4x4'") && Catch::Contains("16") && Catch::Contains("8"));
}

TEST_CASE("factorizations list every ordered split", "[dims]") {
  std::vector<std::string> got;
  for (const Dims& d : factorizations(8, 3)) got.push_back(d.to_string());
  CHECK(got == std::vector<std::string>{"2x2x2", "2x4", "4x2", "8"});
  CHECK(factorizations(7, 3).size() == 1);
  CHECK(factorizations(1, 3).front().to_string() == "1");
  for (const Dims& d : factorizations(12, 3)) CHECK(d.rank_count() == 12);
}

TEST_CASE("dtype and op names round-trip, unknown names are errors", "[types]") {
  for (DType t : all_dtypes()) CHECK(parse_dtype(to_string(t)) == t);
  for (ReduceOp op : all_reduce_ops()) CHECK(parse_reduce_op(to_string(op)) == op);
  CHECK(parse_dtype("fp16") == DType::float16);
  CHECK_THROWS_WITH(parse_dtype("float8"), Catch::Contains("'float8'"));
  CHECK_THROWS_WITH(parse_reduce_op("xor"), Catch::Contains("'xor'"));
}

TEST_CASE("float16 conversion rounds to nearest even", "[types]") {
  CHECK(float_to_half(1.0f) == 0x3c00);
  CHECK(float_to_half(65504.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);  // halfway to the next: ties to even = inf
  CHECK(float_to_half(-0.0f) == 0x8000);
  CHECK(float_to_half(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(std::isnan(half_to_float(float_to_half(std::nanf("")))));
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  CHECK(float_to_half(1.0f + 0x1p-11f) == 0x3c00);
  // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
  CHECK(float_to_half(1.0f + 3 * 0x1p-11f) == 0x3c02);
  CHECK(float_to_half(0x1p-24f) == 0x0001);   // smallest subnormal
  CHECK(float_to_half(0x1p-25f) == 0x0000);   // halfway to it: ties to even (zero)
  for (std::uint32_t h = 0; h < 0x7c00; ++h)  // every finite half survives the round trip
    REQUIRE(float_to_half(half_to_float(static_cast<std::uint16_t>(h))) == h);
}

TEST_CASE("bfloat16 conversion rounds to nearest even", "[types]") {
  CHECK(float_to_bfloat16(1.0f) == 0x3f80);
  CHECK(float_to_bfloat16(1.0f + 0x1p-8f) == 0x3f80);      // tie, even below
  CHECK(float_to_bfloat16(1.0f + 3 * 0x1p-8f) == 0x3f82);  // tie, even above
  CHECK(float_to_bfloat16(1.0f + 0x1p-8f + 0x1p-20f) == 0x3f81);
  CHECK(bfloat16_to_float(0x4040) == 3.0f);
  CHECK(std::isnan(bfloat16_to_float(float_to_bfloat16(std::nanf("")))));
}

TEST_CASE("host kernels reduce every dtype with every op", "[types]") {
  for (DType t : all_dtypes()) {
    for (ReduceOp op : {ReduceOp::sum, ReduceOp::prod, ReduceOp::min, ReduceOp::max}) {
      INFO(to_string(t) << " " << to_string(op));
      unsigned char a[3 * 8], b[3 * 8];
      const double xs[3] = {3, -2, 5}, ys[3] = {4, 6, -1};
      for (int i = 0; i < 3; ++i) {
        store_from_double(a, i, t, xs[i]);
        store_from_double(b, i, t, ys[i]);
      }
      host_reduce(a, b, 3, t, op);
      for (int i = 0; i < 3; ++i) {
        const double want = op == ReduceOp::sum    ? xs[i] + ys[i]
                            : op == ReduceOp::prod ? xs[i] * ys[i]
                            : op == ReduceOp::min  ? std::min(xs[i], ys[i])
                                                   : std::max(xs[i], ys[i]);
        CHECK(load_as_double(a, i, t) == want);
      }
    }
    unsigned char c[2 * 8];
    store_from_double(c, 0, t, 12);
    store_from_double(c, 1, t, 7);
    host_divide(c, 2, t, 4);
    CHECK(load_as_double(c, 0, t) == 3);
    const bool integral = t == DType::int32 || t == DType::int64;
    CHECK(load_as_double(c, 1, t) == (integral ? 1 : 1.75));
  }
  CHECK_THROWS_AS(host_reduce(nullptr, nullptr, 1, DType::float32, ReduceOp::avg), InvalidArgument);
}
