#include "algorithms/switch_chunks.hpp"

#include <algorithm>

#include "algorithms/error.hpp"

namespace ddl {

namespace {

void cut(Block range, std::size_t chunk, int owner, std::vector<SwitchChunk>& out) {
  for (std::size_t done = 0; done < range.bytes; done += chunk)
    out.push_back({{range.offset + done, std::min(chunk, range.bytes - done)}, owner});
}

}  // namespace

std::vector<SwitchChunk> switch_chunks(SwitchCollective kind, std::size_t count,
                                       std::size_t elem_size, int members,
                                       std::size_t chunk_bytes) {
  DDL_CHECK(elem_size > 0 && members > 0, "switch chunks: element size or member count 0");
  const std::size_t bytes = count * elem_size;
  const std::size_t chunk = chunk_bytes == 0
                                ? std::max(bytes, elem_size)
                                : std::max(elem_size, chunk_bytes / elem_size * elem_size);
  std::vector<SwitchChunk> chunks;
  if (kind == SwitchCollective::allreduce) {
    cut({0, bytes}, chunk, -1, chunks);
    return chunks;
  }
  const std::vector<Block> blocks = partition(count, static_cast<std::size_t>(members), elem_size);
  for (std::size_t m = 0; m < blocks.size(); ++m)
    cut(blocks[m], chunk, static_cast<int>(m), chunks);
  return chunks;
}

bool sends_up(SwitchCollective kind, const SwitchChunk& c, int member) {
  return kind != SwitchCollective::allgather || c.owner == member;
}

bool receives_down(SwitchCollective kind, const SwitchChunk& c, int member) {
  return kind != SwitchCollective::reduce_scatter || c.owner == member;
}

bool reduces(SwitchCollective kind) {
  return kind != SwitchCollective::allgather;
}

double switch_pipeline_time(const std::vector<double>& up, const std::vector<double>& reduce,
                            const std::vector<double>& down) {
  const std::size_t n = up.size();
  DDL_CHECK(reduce.size() == n && down.size() == n, "switch pipeline: one time per chunk");
  if (n == 0) return 0;
  double t = 0, up_end = up[0], down_end = 0;
  for (std::size_t c = 0; c < n; ++c) {
    t = std::max(t, up_end);                // chunk c is up
    if (c + 1 < n) up_end = t + up[c + 1];  // chunk c+1 goes up at once
    t += reduce[c];                         // the switch reduces chunk c
    t = std::max(t, down_end);              // chunk c-1 is down
    down_end = t + down[c];                 // chunk c goes down
  }
  return std::max(t, down_end);
}

double switch_collective_time(const SwitchCost& cost, SwitchCollective kind, std::size_t bytes) {
  const std::vector<SwitchChunk> chunks =
      switch_chunks(kind, bytes, 1, cost.members, cost.chunk_bytes);
  std::vector<double> up, reduce, down;
  for (const SwitchChunk& c : chunks) {
    const double n = static_cast<double>(c.range.bytes);
    up.push_back(cost.alpha + n * cost.beta);
    reduce.push_back(reduces(kind) ? cost.members * n * cost.reduce_beta : 0.0);
    down.push_back(cost.alpha + n * cost.beta);
  }
  return switch_pipeline_time(up, reduce, down);
}

}  // namespace ddl
