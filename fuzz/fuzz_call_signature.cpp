// Call signatures (real/mpi/call_signature.hpp), the text the ranks compare before a collective's
// data moves. Two texts, split at the first newline: each that parses formats back to itself,
// and the difference of the two is empty exactly when they are equal, names the first rank
// first, and is symmetric in whether it is empty. A signature built from the input's bytes
// parses back into its nine fields.
#include <string>

#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "fuzz/fuzz_common.hpp"
#include "real/mpi/call_signature.hpp"

using namespace ddl;

namespace {

bool parses(const std::string& text) {
  try {
    fuzz::require(format_call_signature(parse_call_signature(text)) == text,
                  "a signature formats back to its text");
    return true;
  } catch (const Error&) {
    return false;
  }
}

// A signature whose values come from the input: the text any rank would send.
std::string built_from(const std::string& bytes) {
  Options o;
  std::size_t count = 0;
  for (unsigned char c : bytes.substr(0, 8)) count = count * 256 + c;
  if (!bytes.empty()) o.segment_bytes = static_cast<unsigned char>(bytes.back());
  o.rings = 1 + static_cast<int>(bytes.size() % 7);
  o.dims = Dims({1 + static_cast<int>(bytes.size() % 5), 2});
  const auto& names = algorithms();
  const Algorithm& a = names[bytes.size() % names.size()];
  const DType type = all_dtypes()[bytes.size() % all_dtypes().size()];
  return call_signature(count, type, ReduceOp::max, a.name, o);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input = fuzz::text(data, size);
  const std::size_t cut = input.find('\n');
  const std::string a = input.substr(0, cut);
  const std::string b = cut == std::string::npos ? a : input.substr(cut + 1);
  const std::string built = built_from(input);
  fuzz::require(parse_call_signature(built).size() == 10, "a built signature has ten fields");
  for (const std::string& other : {b, built}) {
    if (!parses(a) || !parses(other)) continue;
    const std::string d = describe_call_difference(a, 3, other, 0);
    fuzz::require(d.empty() == (a == other), "no difference exactly between equal texts");
    fuzz::require(d.empty() || d.rfind("rank 3 has ", 0) == 0, "the differing rank comes first");
    fuzz::require(describe_call_difference(other, 0, a, 3).empty() == d.empty(),
                  "a difference either way");
  }
  return 0;
}
