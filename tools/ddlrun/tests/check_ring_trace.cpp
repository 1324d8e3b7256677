// check_ring_trace TRACE RANKS BYTES: exits 0 when TRACE (written by ddlrun --trace) holds
// exactly one float ring allreduce of BYTES bytes on RANKS ranks, event by event (the same
// expectation as the loopback and simulator tests); otherwise prints each problem, exits 1.
#include <cstdlib>
#include <iostream>
#include <string>

#include "harness/tests/ring_trace_check.hpp"
#include "harness/trace.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: check_ring_trace TRACE RANKS BYTES\n";
    return 2;
  }
  try {
    const auto events = ddl::harness::read_trace_file(argv[1]);
    const int ranks = std::stoi(argv[2]);
    const std::size_t bytes = std::stoull(argv[3]);
    const auto problems = ddl::test::ring_trace_problems(events, ranks, bytes, sizeof(float));
    for (const std::string& p : problems) std::cerr << argv[1] << ": " << p << "\n";
    if (!problems.empty()) return 1;
    std::cout << argv[1] << ": " << events.size() << " events, one ring allreduce of " << bytes
              << " bytes on " << ranks << " ranks\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "check_ring_trace: " << e.what() << "\n";
    return 1;
  }
}
