#include "real/calibrate_measure.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "real/mpi_error.hpp"

namespace ddl::calibrate {
namespace {

constexpr int kTag = 7;

// Idle ranks sleep in barriers: they must not compete for the cores.
void quiet_barrier(MpiCommunicator& comm) {
  bounded_barrier(comm.comm(), comm.timeout(), true, "a calibration barrier");
}

// Messages are timed as collectives send them: a send buffer was just written by its rank (a
// reduce's output, the application's data), so the copy reads lines dirty in the sender's
// cache, which costs up to twice as much as re-sending a clean buffer (measured here: a 512 KB
// exchange 29 us clean, 67 us freshly written). Each repetition therefore writes a batch of
// distinct send buffers, ~256 KB in all (1..64 of them: enough messages that a batch outlasts
// the clock's resolution and the line-up skew, few enough bytes that they stay in cache).
int batch_size(std::size_t bytes) {
  return static_cast<int>(std::clamp<std::size_t>((std::size_t{256} << 10) / std::max<std::size_t>(bytes, 1), 1, 64));
}

// One message of `pattern` for this rank; false when the rank takes no part.
bool step(MpiCommunicator& comm, Pattern pattern, MutView send, MutView recv) {
  const int r = comm.rank(), p = comm.size();
  Request rq[2];
  switch (pattern) {
    case Pattern::pingpong:
      if (r == 0) {
        rq[0] = comm.isend(1, send, kTag);
        comm.wait(rq[0]);
        rq[1] = comm.irecv(1, recv, kTag);
        comm.wait(rq[1]);
      } else if (r == 1) {
        rq[1] = comm.irecv(0, recv, kTag);
        comm.wait(rq[1]);
        rq[0] = comm.isend(0, send, kTag);
        comm.wait(rq[0]);
      }
      return r < 2;
    case Pattern::two_each_way: {
      if (r >= 2) return false;
      const std::size_t n = send.bytes / 2;
      Request four[4] = {comm.irecv(r ^ 1, recv.slice(0, n), kTag), comm.irecv(r ^ 1, recv.slice(n, n), kTag + 1),
                         comm.isend(r ^ 1, send.slice(0, n), kTag), comm.isend(r ^ 1, send.slice(n, n), kTag + 1)};
      comm.wait_all(four);
      return true;
    }
    case Pattern::bidirectional:
    case Pattern::pairs: {
      if (pattern == Pattern::bidirectional ? r >= 2 : (r ^ 1) >= p) return false;
      const int peer = r ^ 1;
      rq[1] = comm.irecv(peer, recv, kTag);
      rq[0] = comm.isend(peer, send, kTag);
      comm.wait_all(rq);
      return true;
    }
    case Pattern::ring:
      rq[1] = comm.irecv((r + p - 1) % p, recv, kTag);
      rq[0] = comm.isend((r + 1) % p, send, kTag);
      comm.wait_all(rq);
      return true;
  }
  return false;
}

// Per repetition: prepare(rep) on every rank, a quiet barrier, line_up() (untimed; false on a
// rank that takes no part), then body(0..batch-1) timed; the slowest rank's mean per body().
template <typename Prepare, typename LineUp, typename Body>
std::vector<double> time_reps(MpiCommunicator& comm, int reps, int batch, Prepare&& prepare, LineUp&& line_up,
                              Body&& body) {
  std::vector<double> t(static_cast<std::size_t>(reps), 0.0);
  body(0);  // warm-up: first-touch, protocol set-up
  for (int i = 0; i < reps; ++i) {
    prepare(i);
    quiet_barrier(comm);
    if (!line_up()) continue;
    const double start = comm.now();
    for (int b = 0; b < batch; ++b) body(b);
    t[static_cast<std::size_t>(i)] = (comm.now() - start) / batch;
  }
  check_mpi(MPI_Allreduce(MPI_IN_PLACE, t.data(), reps, MPI_DOUBLE, MPI_MAX, comm.comm()), "MPI_Allreduce (times)");
  return t;
}

// Local work after an untimed run of the same work (which also lines the ranks up).
template <typename Body>
std::vector<double> time_local(MpiCommunicator& comm, int reps, Body&& body) {
  return time_reps(comm, reps, 1, [](int) {}, body, [&](int) { body(); });
}

}  // namespace

const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::pingpong: return "pingpong";
    case Pattern::bidirectional: return "bidirectional";
    case Pattern::two_each_way: return "two_each_way";
    case Pattern::pairs: return "pairs";
    case Pattern::ring: return "ring";
  }
  return "?";
}

const char* to_string(ReceiveBuffers r) { return r == ReceiveBuffers::own ? "own" : "peer-read"; }

ReceiveBuffers parse_receive_buffers(const std::string& text) {
  if (text == "own") return ReceiveBuffers::own;
  if (text == "peer-read") return ReceiveBuffers::peer_read;
  throw InvalidArgument("receive buffers '" + text + "' is not own or peer-read");
}

std::vector<double> time_pattern(MpiCommunicator& comm, Pattern pattern, std::size_t bytes, int reps,
                                 ReceiveBuffers receive) {
  DDL_CHECK(comm.size() >= 2, "calibration needs at least 2 ranks");
  // A step of two_each_way sends two messages of `bytes` from (and receives them into) one
  // view of `span` bytes: its halves.
  const std::size_t span = pattern == Pattern::two_each_way ? 2 * bytes : bytes;
  const int batch = batch_size(span);
  const std::size_t tiny = pattern == Pattern::two_each_way ? 16 : 8, all = span * static_cast<std::size_t>(batch);
  const bool peer_read = receive == ReceiveBuffers::peer_read;
  // Peer-read receive buffers: one per message of the batch, each sent to the peer (which reads
  // it) before the repetition; the peer's copy of it lands in `spill`.
  MutView send = comm.acquire_scratch(all), recv = comm.acquire_scratch(peer_read ? all : span);
  MutView spill = comm.acquire_scratch(peer_read ? span : 0);
  MutView tiny_send = comm.acquire_scratch(tiny), tiny_recv = comm.acquire_scratch(tiny);
  const auto recv_of = [&](int b) { return peer_read ? recv.slice(static_cast<std::size_t>(b) * span, span) : recv; };
  std::vector<double> t = time_reps(
      comm, reps, batch,
      [&](int rep) {
        if (peer_read)
          for (int b = 0; b < batch; ++b) step(comm, pattern, recv_of(b), spill);
        std::memset(send.data, rep & 0xff, send.bytes);
      },
      // A tiny message of the same pattern lines the participants up without reading (and so
      // cleaning) the freshly written buffers.
      [&] { return step(comm, pattern, tiny_send, tiny_recv); },
      [&](int b) { step(comm, pattern, send.slice(static_cast<std::size_t>(b) * span, span), recv_of(b)); });
  comm.release_scratch(tiny_recv);
  comm.release_scratch(tiny_send);
  comm.release_scratch(spill);
  comm.release_scratch(recv);
  comm.release_scratch(send);
  if (pattern == Pattern::pingpong)
    for (double& x : t) x /= 2;  // a round trip is two one-way messages
  return t;
}

const char* to_string(Operands o) {
  return o == Operands::hot ? "hot" : "received";
}

std::vector<double> time_reduce(MpiCommunicator& comm, DType type, std::size_t bytes, int reps,
                                bool all_ranks, Operands operands) {
  const std::size_t count = bytes / dtype_size(type);
  // `own` holds inout (first half) and, for received operands, the half this rank sends.
  MutView own = comm.acquire_scratch(operands == Operands::received ? 2 * bytes : bytes),
          in = comm.acquire_scratch(bytes);
  const MutView inout = own.slice(0, bytes);
  // Zeros are exact in every dtype and op: no overflow, NaN or denormal slows a rep down.
  std::memset(own.data, 0, own.bytes);
  std::memset(in.data, 0, bytes);
  const bool mine = all_ranks || comm.rank() == 0;
  const auto reduce = [&] {
    if (mine) host_reduce(inout.data, in.data, count, type, ReduceOp::sum);
    return mine;
  };
  std::vector<double> t;
  if (operands == Operands::hot) {
    t = time_local(comm, reps, reduce);
  } else {
    // Per repetition the rank writes its buffer, then the ring step (which also lines the ranks
    // up) brings `in`; nothing touches the operands between the step and the timed reduce.
    t = time_reps(
        comm, reps, 1, [&](int) { std::memset(own.data, 0, own.bytes); },
        [&] {
          step(comm, Pattern::ring, own.slice(bytes, bytes), in);
          return mine;
        },
        [&](int) { reduce(); });
  }
  comm.release_scratch(in);
  comm.release_scratch(own);
  return t;
}

std::vector<double> time_copy(MpiCommunicator& comm, std::size_t bytes, int reps, bool all_ranks) {
  MutView a = comm.acquire_scratch(bytes), b = comm.acquire_scratch(bytes);
  const bool mine = all_ranks || comm.rank() == 0;
  std::vector<double> t = time_local(comm, reps, [&] {
    if (mine) comm.copy(a, b);
    return mine;
  });
  comm.release_scratch(b);
  comm.release_scratch(a);
  return t;
}

}  // namespace ddl::calibrate
