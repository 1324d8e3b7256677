// Checks made on rank threads (loopback tests): Catch2's assertions are not thread-safe
// (ThreadSanitizer sees their counters race), so each rank notes the first check that failed in
// its own slot, and the test checks the slots afterwards.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace ddl::test {

class Notes {
 public:
  explicit Notes(int ranks) : first_(static_cast<std::size_t>(ranks)) {}
  // Notes `what` for `rank` unless `ok`; returns ok.
  bool expect(int rank, bool ok, const std::string& what) {
    std::string& first = first_[static_cast<std::size_t>(rank)];
    if (!ok && first.empty()) first = "rank " + std::to_string(rank) + ": " + what;
    return ok;
  }
  void check() const {
    for (const std::string& f : first_) CHECK(f == "");
  }

 private:
  std::vector<std::string> first_;
};

}  // namespace ddl::test

// In a rank's body, with `notes` and the rank's `world` communicator in scope: EXPECT notes a
// failed condition; REQUIRED also ends the rank's body there.
#define EXPECT(...) notes.expect(world.rank(), static_cast<bool>(__VA_ARGS__), #__VA_ARGS__)
#define REQUIRED(...) \
  if (!EXPECT(__VA_ARGS__)) return
