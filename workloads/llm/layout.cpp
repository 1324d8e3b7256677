#include "workloads/llm/layout.hpp"

#include <sstream>
#include <vector>

#include "algorithms/error.hpp"

namespace ddl::llm {

namespace {

int positive(const std::string& piece, const std::string& value, int least, int most) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || value.empty() || v < least || v > most)
    throw InvalidArgument("layout '" + piece + "': " + value + " is not an integer in " +
                          std::to_string(least) + ".." + std::to_string(most));
  return static_cast<int>(v);
}

}  // namespace

long long ParallelLayout::global_batch() const {
  return static_cast<long long>(dp) * micro_batches * micro_batch_size;
}

std::string ParallelLayout::to_string() const {
  std::ostringstream s;
  s << "tp=" << tp << ",pp=" << pp << ",dp=" << dp << ",ep=" << ep << ",mb=" << micro_batches
    << ",mbs=" << micro_batch_size << ",zero=" << zero_stage;
  if (sequence_parallel) s << ",sp";
  if (schedule == PipelineSchedule::interleaved) s << ",interleaved=" << virtual_stages;
  if (recompute) s << ",recompute";
  return s.str();
}

ParallelLayout parse_layout(const std::string& text) {
  ParallelLayout l;
  std::stringstream in(text);
  std::string piece;
  constexpr int kMost = 1 << 20;
  while (std::getline(in, piece, ',')) {
    const std::size_t eq = piece.find('=');
    const std::string key = piece.substr(0, eq),
                      value = eq == std::string::npos ? "" : piece.substr(eq + 1);
    const bool valued = eq != std::string::npos;
    if (key == "sp" && !valued)
      l.sequence_parallel = true;
    else if (key == "recompute" && !valued)
      l.recompute = true;
    else if (key == "tp" && valued)
      l.tp = positive(piece, value, 1, kMost);
    else if (key == "pp" && valued)
      l.pp = positive(piece, value, 1, kMost);
    else if (key == "dp" && valued)
      l.dp = positive(piece, value, 1, kMost);
    else if (key == "ep" && valued)
      l.ep = positive(piece, value, 1, kMost);
    else if (key == "mb" && valued)
      l.micro_batches = positive(piece, value, 1, kMost);
    else if (key == "mbs" && valued)
      l.micro_batch_size = positive(piece, value, 1, kMost);
    else if (key == "zero" && valued)
      l.zero_stage = positive(piece, value, 0, 3);
    else if (key == "interleaved" && valued) {
      l.schedule = PipelineSchedule::interleaved;
      l.virtual_stages = positive(piece, value, 2, kMost);
    } else {
      throw InvalidArgument("layout '" + text + "': '" + piece +
                            "' is none of tp=N, pp=N, dp=N, ep=N, mb=N, mbs=N, zero=0..3, sp, "
                            "interleaved=V, recompute");
    }
  }
  return l;
}

void check_layout(const ParallelLayout& l, const Transformer& m, int gpus) {
  const std::string what = "layout " + l.to_string() + " of " + m.name + ": ";
  auto refuse = [&](const std::string& why) { throw InvalidArgument(what + why); };
  if (l.gpus() != gpus)
    refuse("tp x pp x dp = " + std::to_string(l.gpus()) + ", not the " + std::to_string(gpus) +
           " GPUs");
  for (const auto& [name, n] : std::vector<std::pair<const char*, int>>{
           {"heads", m.heads}, {"kv_heads", m.kv_heads}, {"ffn", m.ffn}})
    if (n % l.tp != 0)
      refuse("tp " + std::to_string(l.tp) + " does not divide " + name + " (" + std::to_string(n) +
             ")");
  const int chunks = l.pp * l.virtual_stages;
  if (l.schedule == PipelineSchedule::interleaved && m.layers % chunks != 0)
    refuse(std::to_string(m.layers) + " layers do not split into pp x virtual stages = " +
           std::to_string(chunks) + " equal chunks (the interleaved schedule needs them equal)");
  if (m.layers < l.pp)
    refuse(std::to_string(m.layers) + " layers are fewer than the " + std::to_string(l.pp) +
           " pipeline stages");
  if (l.ep > 1 && !m.moe()) refuse("ep " + std::to_string(l.ep) + " on a dense model");
  if (l.dp % l.ep != 0 || m.experts % l.ep != 0)
    refuse("ep " + std::to_string(l.ep) + " must divide dp (" + std::to_string(l.dp) +
           ") and the experts (" + std::to_string(m.experts) + ")");
  if (l.sequence_parallel && l.tp == 1) refuse("sequence parallelism needs tp > 1");
  if (l.schedule == PipelineSchedule::interleaved && l.micro_batches % l.pp != 0)
    refuse("the interleaved schedule needs micro-batches (" + std::to_string(l.micro_batches) +
           ") a multiple of pp (" + std::to_string(l.pp) + ")");
}

int stage_layers(const ParallelLayout& l, const Transformer& m, int stage) {
  const int most = (m.layers + l.pp - 1) / l.pp, shortfall = most * l.pp - m.layers;
  // Stage s's place in the order first, last, second, second-to-last, ...
  const int place = stage <= l.pp - 1 - stage ? 2 * stage : 2 * (l.pp - 1 - stage) + 1;
  return place < shortfall ? most - 1 : most;
}

int first_layer(const ParallelLayout& l, const Transformer& m, int stage) {
  int first = 0;
  for (int s = 0; s < stage; ++s) first += stage_layers(l, m, s);
  return first;
}

Coordinates coordinates(const ParallelLayout& l, int rank) {
  return {rank % l.tp, rank / l.tp % l.dp, rank / (l.tp * l.dp)};
}

int rank_at(const ParallelLayout& l, const Coordinates& c) {
  return c.tp + l.tp * (c.dp + l.dp * c.pp);
}

}  // namespace ddl::llm
