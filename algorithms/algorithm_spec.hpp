// The algorithm string: one syntax, parsed here only, accepted by every tool (--algo), plan
// files and the tests:
//
//   name[:dims][:methods][:key=value,...]      e.g.  ddl:4x8x8:ring,hd,hd:rings=2
//                                                     rhd:order=far    ring:segment=1048576
//   dims     the algorithm's grid (ddl, hier), innermost first: 4x8x8
//   methods  ddl's exchange per dimension, one per dimension: ring or hd
//   keys     rings=N (ddl, 1..1024), channels=N (ring, 1..64: rail-aware channels,
//            allreduce_ring.cpp), chunks=N (ddl, 1..1024: the dimensions pipelined over N
//            chunks, allreduce_ddl.cpp), segment=BYTES (every algorithm; 0 = whole transfers),
//            order=near|far (rhd, ddl: halving-doubling's distances, allreduce_rhd.cpp)
// Fields come in that order, each at most once; what a field overrides is the tool's flag of
// the same name for that algorithm only. A list (--algo a,b) is split by split_algorithm_list.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"

namespace ddl {

struct AlgorithmSpec {
  std::string name;  // a registered algorithm
  std::optional<Dims> dims;
  std::vector<IntraMethod> methods;  // empty: not given
  std::optional<int> rings;
  std::optional<int> channels;
  std::optional<int> chunks;
  std::optional<std::size_t> segment_bytes;
  std::optional<HdOrder> order;

  bool plain() const;  // the name alone
  // The canonical string: fields in the order above, keys rings, channels, chunks, segment,
  // order.
  std::string to_string() const;
  // `base` with this spec's fields overriding it.
  Options apply(Options base) const;
  bool operator==(const AlgorithmSpec&) const = default;
};

// Throws InvalidArgument quoting `text` and naming the bad token (an unknown algorithm, a field
// out of order or repeated, an unknown key, a bad value, a field the algorithm does not take,
// methods whose count differs from the dims').
AlgorithmSpec parse_algorithm_spec(std::string_view text);

// "ring,ddl:4x2:ring,hd,rhd:order=far" -> {"ring", "ddl:4x2:ring,hd", "rhd:order=far"}: a comma
// starts a new algorithm except inside a methods field (while it has fewer methods than its
// dims have dimensions, or, without dims, while the next token is a method name) and inside a
// key=value field (while the next token holds '=' before any ':'). Throws InvalidArgument for
// an empty element.
std::vector<std::string> split_algorithm_list(std::string_view list);

}  // namespace ddl
