// Test data for all-to-all-v shared by every backend's tests: layouts with empty blocks, gaps
// and receive ranges in reverse peer order, and inputs whose every element names its sender,
// receiver and position, so a received element in the wrong place or a gap written shows.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/alltoallv.hpp"
#include "algorithms/host_reduce.hpp"

namespace ddl::test {

// Elements rank i sends rank j: up to `most`, zero for some pairs (every count when most = 0).
inline std::size_t alltoallv_count(int i, int j, std::size_t most, int seed) {
  return most == 0 ? 0 : static_cast<std::size_t>(i * 7 + j * 13 + seed) % (most + 1);
}

// Element k of what rank i sends rank j: small integers, exact in every dtype.
inline double alltoallv_value(int i, int j, std::size_t k) {
  return static_cast<double>((i * 31 + j * 17 + static_cast<int>(k % 64)) % 200 + 1);
}
constexpr double kAlltoallvPoison = -7;  // what the output's gaps keep

struct RankLayout {
  AlltoallvLayout send, recv;
  std::size_t input_elements = 0, output_elements = 0;
};

// Rank r's layouts: sends packed in peer order with one element of gap after each block,
// receives packed in reverse peer order, likewise with gaps.
inline RankLayout alltoallv_layout(int p, int r, std::size_t most, int seed) {
  RankLayout l;
  const auto n = static_cast<std::size_t>(p);
  l.send.counts.resize(n), l.send.displs.resize(n), l.recv.counts.resize(n),
      l.recv.displs.resize(n);
  for (int j = 0; j < p; ++j) {
    const auto u = static_cast<std::size_t>(j);
    l.send.counts[u] = alltoallv_count(r, j, most, seed);
    l.send.displs[u] = l.input_elements;
    l.input_elements += l.send.counts[u] + 1;
  }
  for (int i = p - 1; i >= 0; --i) {
    const auto u = static_cast<std::size_t>(i);
    l.recv.counts[u] = alltoallv_count(i, r, most, seed);
    l.recv.displs[u] = l.output_elements;
    l.output_elements += l.recv.counts[u] + 1;
  }
  return l;
}

// Rank r's input (gaps zero) and its output before the call (all poison).
inline std::vector<std::byte> alltoallv_input(const RankLayout& l, int r, DType type) {
  std::vector<std::byte> in(l.input_elements * dtype_size(type));
  for (std::size_t j = 0; j < l.send.counts.size(); ++j)
    for (std::size_t k = 0; k < l.send.counts[j]; ++k)
      store_from_double(in.data(), l.send.displs[j] + k, type,
                        alltoallv_value(r, static_cast<int>(j), k));
  return in;
}
inline std::vector<std::byte> alltoallv_output(const RankLayout& l, DType type) {
  std::vector<std::byte> out(l.output_elements * dtype_size(type));
  for (std::size_t e = 0; e < l.output_elements; ++e)
    store_from_double(out.data(), e, type, kAlltoallvPoison);
  return out;
}

// The first wrong element of rank r's output, described; "" when exact.
inline std::string alltoallv_wrong(const std::vector<std::byte>& out, const RankLayout& l, int r,
                                   DType type) {
  std::vector<double> expected(l.output_elements, kAlltoallvPoison);
  for (std::size_t i = 0; i < l.recv.counts.size(); ++i)
    for (std::size_t k = 0; k < l.recv.counts[i]; ++k)
      expected[l.recv.displs[i] + k] = alltoallv_value(static_cast<int>(i), r, k);
  for (std::size_t e = 0; e < l.output_elements; ++e) {
    const double got = load_as_double(out.data(), e, type);
    if (got != expected[e])
      return "rank " + std::to_string(r) + " element " + std::to_string(e) + ": got " +
             std::to_string(got) + " expected " + std::to_string(expected[e]);
  }
  return "";
}

}  // namespace ddl::test
