// Message sizes on the command line and the sweep over them, as nccl-tests spells them:
// "8", "64K", "1M", "256M", "1G" (suffixes are powers of 1024, upper or lower case, an
// optional trailing "B" is accepted: "64KB").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ddl::harness {

// Throws InvalidArgument quoting the input for anything that is not a byte count.
std::size_t parse_size(std::string_view text);
// The shortest exact spelling: 65536 -> "64K", 1000 -> "1000".
std::string format_size(std::size_t bytes);

// min, min*f, min*f^2, ... up to and including max. Throws InvalidArgument (naming the
// flags) when min > max, or when a sweep of more than one size has factor < 2 or min == 0.
std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes,
                                    std::size_t factor);

}  // namespace ddl::harness
