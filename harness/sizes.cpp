#include "harness/sizes.hpp"

#include <cctype>
#include <charconv>
#include <limits>

#include "algorithms/error.hpp"

namespace ddl::harness {

std::size_t parse_size(std::string_view text) {
  const std::string quoted = "'" + std::string(text) + "'";
  const auto bad = [&](const char* why) {
    return InvalidArgument("bad size " + quoted + ": " + why +
                           " (expected e.g. 8, 64K, 1M, 256M, 1G; suffixes are powers of 1024)");
  };
  std::size_t value = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [digits_end, ec] = std::from_chars(begin, end, value);
  if (ec == std::errc::result_out_of_range) throw bad("too large");
  if (ec != std::errc() || digits_end == begin) throw bad("no leading number");
  std::string_view suffix(digits_end, static_cast<std::size_t>(end - digits_end));
  if (suffix.size() == 2 && (suffix[1] == 'B' || suffix[1] == 'b')) suffix.remove_suffix(1);
  int shift = 0;
  if (suffix.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
      case 'B': shift = 0; break;
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      default: throw bad("unknown suffix");
    }
  } else if (!suffix.empty()) {
    throw bad("unknown suffix");
  }
  if (value > (std::numeric_limits<std::size_t>::max() >> shift)) throw bad("too large");
  return value << shift;
}

std::string format_size(std::size_t bytes) {
  static constexpr const char* kSuffix[] = {"", "K", "M", "G", "T"};
  int unit = 0;
  while (unit < 4 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kSuffix[unit];
}

std::vector<std::size_t> size_sweep(std::size_t min_bytes, std::size_t max_bytes,
                                    std::size_t factor) {
  if (min_bytes > max_bytes)
    throw InvalidArgument("--minbytes (" + std::to_string(min_bytes) +
                          ") is larger than --maxbytes (" + std::to_string(max_bytes) + ")");
  if (min_bytes == max_bytes) return {min_bytes};
  if (factor < 2)
    throw InvalidArgument(
        "--stepfactor must be at least 2 to sweep from --minbytes to --maxbytes, got " +
        std::to_string(factor));
  if (min_bytes == 0)
    throw InvalidArgument("--minbytes must be > 0 to sweep by a factor (0 never grows)");
  std::vector<std::size_t> sizes;
  for (std::size_t s = min_bytes;; s *= factor) {
    sizes.push_back(s);
    if (s > max_bytes / factor) break;  // the next one would exceed max (or overflow)
  }
  return sizes;
}

}  // namespace ddl::harness
