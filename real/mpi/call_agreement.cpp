#include "real/mpi/call_agreement.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "algorithms/collectives.hpp"
#include "real/mpi/call_signature.hpp"

namespace ddl {
namespace {

// The verdict once the hashes differ: every rank computes it from the same gathered texts.
std::string what_differs(const std::vector<GatheredArguments>& all) {
  for (std::size_t r = 0; r < all.size(); ++r)
    if (all[r].failed)
      return "rank " + std::to_string(r) + " could not make the call: " + all[r].text;
  for (std::size_t r = 1; r < all.size(); ++r) {
    if (all[r].hash == all[0].hash) continue;
    try {
      return describe_call_difference(all[r].text, static_cast<int>(r), all[0].text, 0);
    } catch (const InvalidArgument&) {
      // Cut or foreign texts: quote them rather than lose the rank.
      return "rank " + std::to_string(r) + " has '" + all[r].text + "', rank 0 has '" +
             all[0].text + "'";
    }
  }
  return "the ranks' signatures hash differently";
}

}  // namespace

void agree_on_call(MpiCommunicator& comm, const LocalArguments& mine) {
  if (comm.size() == 1) return;
  // A failure and a signature never hash alike: a signature never starts with '!'.
  const unsigned long long hash = hash_text(mine.error ? "!" + *mine.error : mine.canonical),
                           complement = ~hash;
  // The minimum of the hash and of its complement (the maximum, complemented) in one allreduce:
  // equal everywhere exactly when min == max. As int64 the order is signed; complementing is
  // still order-reversing (~x == -x - 1), so the argument holds.
  std::int64_t words[2];
  std::memcpy(&words[0], &hash, sizeof hash);
  std::memcpy(&words[1], &complement, sizeof complement);
  Options options;
  options.tag_base = kCallAgreementTag;
  allreduce_rd(comm, MutView{words, sizeof words}, DType::int64, ReduceOp::min, options);
  unsigned long long low = 0, high_complement = 0;
  std::memcpy(&low, &words[0], sizeof low);
  std::memcpy(&high_complement, &words[1], sizeof high_complement);
  if (low == ~high_complement) return;

  const std::vector<GatheredArguments> all =
      gather_arguments(comm.comm(), mine, comm.timeout(), "the comparison of every rank's call");
  if (mine.error) return;
  throw RanksDisagree("ranks disagree on the call: " + what_differs(all));
}

}  // namespace ddl
