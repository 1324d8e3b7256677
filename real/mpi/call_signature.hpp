// A collective call's signature: everything about one call that shapes its schedule (count,
// dtype, op, algorithm and the options the algorithm runs with), as one text of fields
//
//   count=1000;dtype=float;op=sum;algorithm=ring;dims=2;methods=;rings=1;segment=0;order=near;root=0
//
// The ranks compare signatures before any data moves (call_agreement.hpp): ranks that run
// different schedules exchange messages of different sizes, and Open MPI's shared-memory
// transport copies a message longer than the posted receive past its end before it reports the
// truncation. Pure text functions, no MPI: the fuzz target fuzz_call_signature drives them.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"

namespace ddl {

struct CallField {
  std::string name;   // non-empty, no '=' or ';'
  std::string value;  // no ';'
  bool operator==(const CallField&) const = default;
};

// The signature of a collective of `count` elements run as `algorithm` (a registered name, which
// names the collective too) with `options` (the algorithm string's fields already applied): the
// options' fields that shape a schedule, whatever the algorithm reads of them, so two ranks agree
// exactly when they would run the same steps on the same sizes.
std::string call_signature(std::size_t count, DType type, ReduceOp op, std::string_view algorithm,
                           const Options& options);

// Fields in order. "" has none. Throws InvalidArgument quoting the bad part for a piece without
// '=', an empty name or a name given twice.
std::vector<CallField> parse_call_signature(std::string_view text);
// The text parse_call_signature reads back to `fields`.
std::string format_call_signature(const std::vector<CallField>& fields);

// What one rank's signature has that another's does not, e.g. "rank 1 has count 1000000, rank 0
// has count 1000" (several fields: "rank 1 has count 8 and op max, rank 0 has count 4 and op
// sum"); a field one of them lacks reads "no NAME". "" when the texts are equal. Texts that
// differ only in the order of their fields are quoted whole. Throws InvalidArgument when either
// text does not parse.
std::string describe_call_difference(std::string_view theirs, int their_rank,
                                     std::string_view reference, int reference_rank);

}  // namespace ddl
