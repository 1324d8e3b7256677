// What one ring allreduce must look like in a trace, whichever backend recorded it: per rank,
// 2(p-1) sends to rank+1 and 2(p-1) receives from rank-1 in step order (reduce-scatter, then
// allgather), each one whole block of partition(count, p) (no segmenting), tag 0, dimension -1,
// and one reduce of each received reduce-scatter block; nothing else. Shared by the loopback,
// simulator and MPI tests, so the three backends are held to the same expectation.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "algorithms/schedule.hpp"
#include "harness/trace.hpp"

namespace ddl::test {

// Problems found (empty: the trace is exactly one ring allreduce of `bytes` on p ranks).
inline std::vector<std::string> ring_trace_problems(const std::vector<harness::TraceEvent>& events,
                                                    int p, std::size_t bytes, std::size_t elem) {
  using harness::TraceKind;
  std::vector<std::string> problems;
  auto expect = [&](bool ok, const std::string& what) {
    if (!ok) problems.push_back(what);
  };
  const std::vector<Block> blocks = partition(bytes / elem, static_cast<std::size_t>(p), elem);
  auto block = [&](int index) {
    return blocks[static_cast<std::size_t>(((index % p) + p) % p)].bytes;
  };
  const int steps = p - 1;
  for (int r = 0; r < p; ++r) {
    std::vector<const harness::TraceEvent*> sends, recvs, reduces;
    for (const harness::TraceEvent& e : events) {
      if (e.rank != r) continue;
      const std::string at = "rank " + std::to_string(r) + " " + to_string(e.kind) + ": ";
      expect(e.algo == "ring" && e.size == bytes && e.iteration == 0,
             at + "belongs to " + e.algo + " " + std::to_string(e.size) + " iteration " +
                 std::to_string(e.iteration));
      expect(e.start_us <= e.end_us, at + "ends before it starts");
      expect(e.dimension == -1, at + "dimension " + std::to_string(e.dimension));
      if (e.kind == TraceKind::send)
        sends.push_back(&e);
      else if (e.kind == TraceKind::recv)
        recvs.push_back(&e);
      else if (e.kind == TraceKind::reduce)
        reduces.push_back(&e);
      else
        expect(false, at + "unexpected kind");
    }
    const std::string who = "rank " + std::to_string(r) + ": ";
    expect(sends.size() == static_cast<std::size_t>(2 * steps),
           who + std::to_string(sends.size()) + " sends");
    expect(recvs.size() == static_cast<std::size_t>(2 * steps),
           who + std::to_string(recvs.size()) + " recvs");
    expect(reduces.size() == static_cast<std::size_t>(steps),
           who + std::to_string(reduces.size()) + " reduces");
    if (!problems.empty()) continue;
    for (int k = 0; k < 2 * steps; ++k) {
      const bool rs = k < steps;
      const int s = rs ? k : k - steps;
      const harness::TraceEvent& send = *sends[static_cast<std::size_t>(k)];
      const harness::TraceEvent& recv = *recvs[static_cast<std::size_t>(k)];
      const std::string step = who + "step " + std::to_string(k) + " ";
      const std::string phase = rs ? "reduce_scatter" : "allgather";
      // Reduce-scatter step s sends block r-s-1 and receives r-s-2; allgather sends r-s, receives
      // r-s-1.
      const std::size_t send_bytes = block(rs ? r - s - 1 : r - s),
                        recv_bytes = block(rs ? r - s - 2 : r - s - 1);
      expect(send.peer == (r + 1) % p && send.tag == 0 && send.phase == phase &&
                 send.bytes == send_bytes,
             step + "send: peer " + std::to_string(send.peer) + " tag " + std::to_string(send.tag) +
                 " phase " + send.phase + " bytes " + std::to_string(send.bytes));
      expect(recv.peer == (r + p - 1) % p && recv.tag == 0 && recv.phase == phase &&
                 recv.bytes == recv_bytes,
             step + "recv: peer " + std::to_string(recv.peer) + " tag " + std::to_string(recv.tag) +
                 " phase " + recv.phase + " bytes " + std::to_string(recv.bytes));
      if (!rs) continue;
      const harness::TraceEvent& red = *reduces[static_cast<std::size_t>(k)];
      expect(red.phase == "reduce_scatter" && red.bytes == recv_bytes && red.peer == -1 &&
                 red.tag == -1 && red.start_us >= recv.end_us,
             step + "reduce: phase " + red.phase + " bytes " + std::to_string(red.bytes));
    }
  }
  return problems;
}

}  // namespace ddl::test
