// direct: allreduce among ranks that reach each other's memory (the ranks of one node), with
// one-sided copies (OneSided::get / put, one_sided.hpp) instead of messages.
//
// Vocabulary: block - the part of the buffer rank i owns, block i of partition(count, p);
// chunk - a piece of a block of at most Options::segment_bytes (kDirectChunkBytes when 0), small
// enough to stay in the core's cache from the copy that brings it to the one that sends it out.
//
// Rank i, for each chunk of its block: gets every peer's copy of the chunk into one chunk of
// scratch and reduces it into its own buffer, then puts the result into every peer's buffer.
// Nobody else touches that chunk anywhere: peer j reads and writes block j only, and reads each
// chunk of it before it writes it. So between two handshakes no rank waits for another. First
// every rank sends its buffer's handle to every peer (which also says its input is in place);
// last every rank sends every peer a one-byte message after its last put (which says it reads
// and writes their buffers no more) and returns once it has one from each. avg divides each
// chunk before it is put.
//
// Why, on a host: through messages a rank receives a whole block into scratch and reads it back
// to reduce it, so two ranks move 7S through memory. Here the scratch stays in cache and each
// result leaves while it is still there: each rank reads its block and the peer's copy and
// writes both once, 4S for two ranks (5S where the kernel reads a line before it writes it);
// experiments/results/bench_real_summary.txt.
//
// Cost, on the link class of the node:
//   2 α + 2 (p-1)/p S β + (p-1)/p S γ
// Each handshake is one step of tiny messages posted to every peer at once, which pays α once
// (schedule_cost.hpp prices a step's concurrent messages so). The gets and puts are copies with
// no message of their own, one after another on the rank's core: their bytes add, with no α per
// chunk. Against ring, 2 (p-1) α and the same bytes: the model cannot see the memory traffic
// direct saves, so at p = 2 it ties with ring (and rhd), and the tie goes to direct, the earlier
// entry of the table. `auto` weighs it only where every link class is shared memory
// (LinkCost::shared_memory, best_allreduce).
#include "algorithms/allreduce_direct.hpp"

#include <algorithm>
#include <vector>

#include "algorithms/collectives.hpp"
#include "algorithms/one_sided.hpp"
#include "algorithms/schedule.hpp"

namespace ddl {

std::vector<Block> direct_chunks(Block block, std::size_t chunk_bytes, std::size_t elem_size) {
  DDL_CHECK(elem_size > 0, "direct: element size 0");
  const std::size_t chunk = std::max(
      elem_size, (chunk_bytes == 0 ? kDirectChunkBytes : chunk_bytes) / elem_size * elem_size);
  std::vector<Block> chunks;
  for (std::size_t done = 0; done < block.bytes; done += chunk)
    chunks.push_back({block.offset + done, std::min(chunk, block.bytes - done)});
  return chunks;
}

void allreduce_direct(Communicator& comm, MutView buf, DType type, ReduceOp op,
                      const Options& opts) {
  const std::size_t count = element_count(buf, type);
  const int p = comm.size(), me = comm.rank();
  OneSided* const shared = comm.one_sided();  // null: this backend reaches no peer's memory
  for (int peer = 0; peer < p; ++peer)
    if (peer != me && !(shared && shared->shares_memory_with(peer)))
      throw InvalidArgument("direct: ranks " + std::to_string(me) + " and " + std::to_string(peer) +
                            " do not share memory (direct runs among the ranks of one node)");
  if (p == 1 || buf.bytes == 0) return;
  const std::size_t elem = dtype_size(type);
  const int tag = opts.tag_base;

  // Handshake: every peer's handle, which also says its input is in place.
  comm.set_phase("handshake", -1);
  const MemoryHandle mine = shared->handle(buf);
  std::vector<MemoryHandle> theirs(static_cast<std::size_t>(p));
  std::vector<Request> requests;
  for (int k = 1; k < p; ++k) {
    const int peer = (me + k) % p;
    requests.push_back(
        comm.irecv(peer, {&theirs[static_cast<std::size_t>(peer)], sizeof(MemoryHandle)}, tag));
    requests.push_back(comm.isend(peer, {&mine, sizeof(MemoryHandle)}, tag));
  }
  comm.wait_all(requests);
  requests.clear();
  // A peer's buffer of another size runs another partition: its gets and puts would miss this
  // rank's blocks. Every rank sees every handle, so each one whose size differs from some
  // other's finds it here, before any copy.
  for (int k = 1; k < p; ++k) {
    const int peer = (me + k) % p;
    const std::size_t bytes = theirs[static_cast<std::size_t>(peer)].bytes;
    if (bytes != buf.bytes)
      throw InvalidArgument("direct: rank " + std::to_string(peer) + "'s buffer is " +
                            std::to_string(bytes) + " bytes, rank " + std::to_string(me) + "'s " +
                            std::to_string(buf.bytes) +
                            " (every rank must reduce the same count of the same dtype)");
  }

  const Block block =
      partition(count, static_cast<std::size_t>(p), elem)[static_cast<std::size_t>(me)];
  const std::vector<Block> chunks = direct_chunks(block, opts.segment_bytes, elem);
  Scratch scratch(comm, chunks.empty() ? 0 : chunks.front().bytes);
  const ReduceOp sum_op = reduction_op(op);
  for (const Block& c : chunks) {
    const MutView own = buf.slice(c.offset, c.bytes);
    const MutView landing = scratch.view().slice(0, c.bytes);
    comm.set_phase("reduce_scatter", -1);
    for (int k = 1; k < p; ++k) {
      const int peer = (me + k) % p;
      shared->get(peer, theirs[static_cast<std::size_t>(peer)], c.offset, landing);
      comm.reduce(own, landing, type, sum_op);
    }
    finish_average(comm, own, type, op, static_cast<std::size_t>(p));
    comm.set_phase("allgather", -1);
    for (int k = 1; k < p; ++k) {
      const int peer = (me + k) % p;
      shared->put(peer, theirs[static_cast<std::size_t>(peer)], c.offset, own);
    }
  }

  // Handshake: this rank is done with every peer's buffer, and waits until they are with its.
  comm.set_phase("handshake", -1);
  const unsigned char done = 1;
  std::vector<unsigned char> heard(static_cast<std::size_t>(p));
  for (int k = 1; k < p; ++k) {
    const int peer = (me + k) % p;
    requests.push_back(comm.irecv(peer, {&heard[static_cast<std::size_t>(peer)], 1}, tag));
    requests.push_back(comm.isend(peer, {&done, 1}, tag));
  }
  comm.wait_all(requests);
}

double allreduce_direct_cost(const CostQuery& q) {
  const double p = q.dims.rank_count(), s = static_cast<double>(q.bytes);
  // The node's link class: the outermost (with one node, every dimension is inside it).
  const LinkCost& link = q.params.per_dim.back();
  // The handshakes' messages: a handle each, then one byte.
  const double handshakes = link.latency(sizeof(MemoryHandle)) + link.latency(1);
  return handshakes + 2 * (p - 1) / p * s * link.beta + (p - 1) / p * s * q.params.gamma;
}

}  // namespace ddl
