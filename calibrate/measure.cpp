#include "calibrate/measure.hpp"

#include <algorithm>
#include <cstring>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "calibrate/control.hpp"

namespace ddl::calibrate {
namespace {

constexpr int kTag = 7;

// Messages are timed as collectives send them: a send buffer was just written by its rank (a
// reduce's output, the application's data), so the copy reads lines dirty in the sender's
// cache, which costs up to twice as much as re-sending a clean buffer (measured here: a 512 KB
// exchange 29 us clean, 67 us freshly written). Each repetition therefore writes a batch of
// distinct send buffers, ~256 KB in all (1..64 of them: enough messages that a batch outlasts
// the clock's resolution and the line-up skew, few enough bytes that they stay in cache).
int batch_size(std::size_t bytes) {
  return static_cast<int>(
      std::clamp<std::size_t>((std::size_t{256} << 10) / std::max<std::size_t>(bytes, 1), 1, 64));
}

// A pattern as the steps one repetition runs in order (a ping-pong: there and back) and this
// rank's part in each.
struct Schedule {
  std::vector<RankFlows> steps;
  int span = 1;  // messages of one step that one rank sends or receives at most (all ranks alike)
  bool mine() const {
    return std::any_of(steps.begin(), steps.end(), [](const RankFlows& f) { return !f.empty(); });
  }
};

Schedule schedule(MpiCommunicator& comm, Pattern pattern, const Topology& t, int pingpong_peer) {
  std::vector<std::vector<Flow>> steps;
  if (pattern == Pattern::pingpong)
    steps = {{{0, pingpong_peer}}, {{pingpong_peer, 0}}};
  else
    steps = {pattern_flows(pattern, t)};
  Schedule s;
  for (const std::vector<Flow>& flows : steps) {
    for (const Flow& f : flows)
      DDL_CHECK(
          f.src < comm.size() && f.dst < comm.size(),
          std::string("pattern ") + to_string(pattern) + " needs more ranks than the world has");
    s.span = std::max(s.span, messages_per_rank(flows));
    s.steps.push_back(flows_of_rank(flows, comm.rank()));
  }
  return s;
}

// One repetition's messages of `bytes` each: the k-th receive of a step lands in the k-th
// `bytes` of `recv`, the k-th send leaves from the k-th of `send`.
void run(MpiCommunicator& comm, const Schedule& s, std::size_t bytes, MutView send, MutView recv) {
  std::vector<Request> rq;
  for (const RankFlows& step : s.steps) {
    if (step.empty()) continue;
    rq.clear();
    for (std::size_t k = 0; k < step.in.size(); ++k)
      rq.push_back(
          comm.irecv(step.in[k].peer, recv.slice(k * bytes, bytes), kTag + step.in[k].tag_offset));
    for (std::size_t k = 0; k < step.out.size(); ++k)
      rq.push_back(comm.isend(step.out[k].peer, send.slice(k * bytes, bytes),
                              kTag + step.out[k].tag_offset));
    comm.wait_all(rq);
  }
}

// Per repetition: prepare(rep) on every rank, a barrier, line_up() (untimed; false on a rank
// that takes no part), then body(0..batch-1) timed; the slowest rank's mean per body().
template <typename Prepare, typename LineUp, typename Body>
std::vector<double> time_reps(MpiCommunicator& comm, int reps, int batch, Prepare&& prepare,
                              LineUp&& line_up, Body&& body) {
  std::vector<double> t(static_cast<std::size_t>(reps), 0.0);
  body(0);  // warm-up: first-touch, protocol set-up
  for (int i = 0; i < reps; ++i) {
    prepare(i);
    control_barrier(comm, "a calibration barrier");
    if (!line_up()) continue;
    const double start = comm.now();
    for (int b = 0; b < batch; ++b) body(b);
    t[static_cast<std::size_t>(i)] = (comm.now() - start) / batch;
  }
  control_max(comm, t, "gathering the times");
  return t;
}

// Local work after an untimed run of the same work (which also lines the ranks up).
template <typename Body>
std::vector<double> time_local(MpiCommunicator& comm, int reps, Body&& body) {
  return time_reps(
      comm, reps, 1, [](int) {}, body, [&](int) { body(); });
}

}  // namespace

const char* to_string(ReceiveBuffers r) {
  return r == ReceiveBuffers::own ? "own" : "peer-read";
}

ReceiveBuffers parse_receive_buffers(const std::string& text) {
  if (text == "own") return ReceiveBuffers::own;
  if (text == "peer-read") return ReceiveBuffers::peer_read;
  throw InvalidArgument("receive buffers '" + text + "' is not own or peer-read");
}

std::vector<double> time_pattern(MpiCommunicator& comm, Pattern pattern, const Topology& topology,
                                 std::size_t bytes, int reps, ReceiveBuffers receive,
                                 int pingpong_peer) {
  DDL_CHECK(comm.size() >= 2, "calibration needs at least 2 ranks");
  const Schedule s = schedule(comm, pattern, topology, pingpong_peer);
  // A rank's messages of one step leave from (and land in) one view of `span` bytes.
  const std::size_t span = static_cast<std::size_t>(s.span) * bytes;
  const int batch = batch_size(span);
  const bool mine = s.mine(), peer_read = receive == ReceiveBuffers::peer_read;
  const std::size_t own = mine ? 1 : 0, all = own * span * static_cast<std::size_t>(batch);
  // Peer-read receive buffers: one per step of the batch, each sent to the peer (which reads
  // it) before the repetition; the peer's copy of it lands in `spill`.
  MutView send = comm.acquire_scratch(all),
          recv = comm.acquire_scratch(peer_read ? all : own * span);
  MutView spill = comm.acquire_scratch(peer_read ? own * span : 0);
  MutView tiny_send = comm.acquire_scratch(own * s.span * 8),
          tiny_recv = comm.acquire_scratch(own * s.span * 8);
  const auto recv_of = [&](int b) {
    return peer_read ? recv.slice(static_cast<std::size_t>(b) * span, span) : recv;
  };
  std::vector<double> t = time_reps(
      comm, reps, batch,
      [&](int rep) {
        if (!mine) return;
        if (peer_read)
          for (int b = 0; b < batch; ++b) run(comm, s, bytes, recv_of(b), spill);
        std::memset(send.data, rep & 0xff, send.bytes);
      },
      // A tiny message of the same pattern lines the participants up without reading (and so
      // cleaning) the freshly written buffers.
      [&] {
        run(comm, s, 8, tiny_send, tiny_recv);
        return mine;
      },
      [&](int b) {
        if (mine)
          run(comm, s, bytes, send.slice(static_cast<std::size_t>(b) * span, span), recv_of(b));
      });
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

std::vector<double> time_reduce(MpiCommunicator& comm, const Topology& topology, DType type,
                                std::size_t bytes, int reps, bool all_ranks, Operands operands) {
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
    // Per repetition the rank writes its buffer, then the ring step inside its node (which also
    // lines the ranks up) brings `in`; nothing touches the operands between the step and the
    // timed reduce.
    const Schedule ring = schedule(comm, Pattern::node_rings, topology, 1);
    t = time_reps(
        comm, reps, 1, [&](int) { std::memset(own.data, 0, own.bytes); },
        [&] {
          run(comm, ring, bytes, own.slice(bytes, bytes), in);
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
