#include "workloads/llm/step_graph.hpp"

#include <algorithm>

#include "algorithms/error.hpp"

namespace ddl::llm {

std::string_view to_string(GroupKind g) {
  switch (g) {
    case GroupKind::tp: return "tp";
    case GroupKind::dp: return "dp";
    case GroupKind::ep: return "ep";
    case GroupKind::expert_dp: return "expert_dp";
    case GroupKind::world: return "world";
  }
  return "tp";
}

std::vector<std::pair<bool, int>> one_f_one_b(int pp, int micro_batches, int stage) {
  const int warmup = std::min(pp - stage - 1, micro_batches);
  std::vector<std::pair<bool, int>> order;
  for (int i = 0; i < warmup; ++i) order.push_back({true, i});
  for (int i = 0; i < micro_batches - warmup; ++i) {
    order.push_back({true, i + warmup});
    order.push_back({false, i});
  }
  for (int i = micro_batches - warmup; i < micro_batches; ++i) order.push_back({false, i});
  return order;
}

namespace {

// A layer's figures on one GPU of the layout.
struct LayerWork {
  double attention_flops, mlp_flops, router_flops;  // forward, one micro-batch
  double attention_bytes, mlp_bytes;                // weights, bytes
  double dense_params, expert_params;               // on this GPU
  std::size_t activation;                           // b s h, bytes (the TP collectives' size)
  std::size_t routed;                               // b s h top_k / t, bytes (each all-to-all)
};

LayerWork layer_work(const Transformer& m, const ParallelLayout& l) {
  const double h = m.hidden, s = m.sequence, b = l.micro_batch_size, t = l.tp, f = m.ffn;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim(), e = m.dtype_bytes;
  const double matrices = m.gated_mlp ? 3 : 2;
  LayerWork w{};
  w.attention_flops = (2 * b * s * h * (h + 2 * kv) + 4 * b * s * s * h + 2 * b * s * h * h) / t;
  w.mlp_flops = m.top_k * matrices * 2 * b * s * h * f / t;
  w.router_flops = m.moe() ? 2 * b * s * h * m.experts / t : 0;
  // A dense model's MLP is replicated over dp like attention; experts over dp / ep.
  const double mlp = matrices * h * f / t * m.experts / l.ep;
  w.dense_params = (h * (h + 2 * kv) + h * h) / t + (m.moe() ? h * m.experts : mlp) + 2 * h;
  w.expert_params = m.moe() ? mlp : 0;
  const double io = 2 * b * s * h * e;  // assumed: the block's input read and output written
  w.attention_bytes = (h * (h + 2 * kv) + h * h) / t * e + io;
  w.mlp_bytes =
      matrices * h * f / t * e * (m.moe() ? static_cast<double>(m.experts) / l.ep : 1) + io;
  w.activation = static_cast<std::size_t>(b * s * h * e);
  w.routed = static_cast<std::size_t>(b * s * h * m.top_k * e / t);
  return w;
}

class Builder {
 public:
  Builder(const Transformer& m, const ParallelLayout& l, int rank)
      : m_(m), l_(l), c_(coordinates(l, rank)), w_(layer_work(m, l)) {}

  std::vector<Op> build() {
    const int stage = c_.pp, layers = stage_layers(l_, m_, stage),
              first_index = first_layer(l_, m_, stage);
    const bool first = stage == 0, last = stage == l_.pp - 1;
    const std::size_t boundary = w_.activation / static_cast<std::size_t>(l_.tp);
    std::vector<std::size_t> grad_ops;  // data-parallel reductions the optimizer waits for
    std::size_t gathered = 0;           // ZeRO 3: the allgather of the next layer's weights
    for (const auto& [forward, mb] : one_f_one_b(l_.pp, l_.micro_batches, stage)) {
      const std::string pass = std::string(forward ? "F" : "B").append(std::to_string(mb));
      const double scale = forward ? 1 : 2;  // backward: twice the forward's FLOPs
      const bool last_backward = !forward && mb == l_.micro_batches - 1;
      if (forward && !first)
        wait_for(p2p(Op::Kind::recv, pass + " recv activations", stage - 1, boundary));
      if (!forward && !last)
        wait_for(p2p(Op::Kind::recv, pass + " recv gradients", stage + 1, boundary));
      if (!forward && last) compute(pass + " logits", 2 * logits_flops(), logits_bytes());
      for (int k = 0; k < layers; ++k) {
        const auto label = [&](int k_th) {
          return pass + " L" + std::to_string(first_index + (forward ? k_th : layers - 1 - k_th));
        };
        const std::string at = label(k);
        if (l_.zero_stage == 3 && l_.dp > 1) {
          // Prefetch (DeepSpeed's and FSDP's): the next layer's weights are gathered while this
          // layer computes; both gathers wait for the compute before this layer, so they queue
          // back to back on the data-parallel stream.
          const auto gather = [&](int k_th) {
            return collective(label(k_th) + " weights", GroupKind::dp, Collective::allgather,
                              bytes(w_.dense_params), true);
          };
          if (k == 0) gathered = gather(0);
          const std::size_t mine = gathered;
          if (k + 1 < layers) gathered = gather(k + 1);
          wait_for(mine);
        }
        // Full recomputation (Korthikanti et al. 2022, section 4): a layer's forward runs again,
        // its tensor-parallel and expert collectives with it, right before its backward.
        if (forward || l_.recompute) {
          const std::string again = forward ? at : at + " recompute";
          block(again + " attention", w_.attention_flops, w_.attention_bytes);
          if (m_.moe()) {
            compute(again + " router", w_.router_flops, 0);
            wait_for(collective(again + " dispatch", GroupKind::ep, Collective::alltoall, w_.routed,
                                true));
          }
          block(again + " mlp", w_.mlp_flops, w_.mlp_bytes);
          if (m_.moe())
            wait_for(collective(again + " combine", GroupKind::ep, Collective::alltoall, w_.routed,
                                true));
        }
        if (!forward) {  // the mirror: the combine's gradients back to the experts, and so on
          if (m_.moe())
            wait_for(
                collective(at + " combine", GroupKind::ep, Collective::alltoall, w_.routed, true));
          block(at + " mlp", w_.mlp_flops * scale, w_.mlp_bytes);
          if (m_.moe()) {
            wait_for(
                collective(at + " dispatch", GroupKind::ep, Collective::alltoall, w_.routed, true));
            compute(at + " router", w_.router_flops * scale, 0);
          }
          block(at + " attention", w_.attention_flops * scale, w_.attention_bytes);
        }
        if (last_backward && l_.dp > 1) {
          // This layer's gradients are final: reduce them while the next layers compute.
          const Collective c =
              l_.zero_stage == 0 ? Collective::allreduce : Collective::reduce_scatter;
          // Every replica holds the layer's whole gradient: the collective's buffer either way.
          grad_ops.push_back(
              collective(at + " gradients", GroupKind::dp, c, bytes(w_.dense_params), false));
          if (m_.moe() && expert_dp_size() > 1)
            grad_ops.push_back(collective(at + " expert gradients", GroupKind::expert_dp, c,
                                          bytes(w_.expert_params), false));
        }
      }
      if (forward && last) compute(pass + " logits", logits_flops(), logits_bytes());
      if (forward && !last) p2p(Op::Kind::send, pass + " send activations", stage + 1, boundary);
      if (!forward && !first) p2p(Op::Kind::send, pass + " send gradients", stage - 1, boundary);
    }
    // The optimizer step waits for every reduction; ZeRO 1 and 2 then gather the updated weights.
    for (std::size_t g : grad_ops) pending_.push_back(g);
    const double params = layers * (w_.dense_params + w_.expert_params);
    compute("optimizer", 0, 2 * 16 * params / (l_.zero_stage >= 1 ? dp_size() : 1),
            Kernel::optimizer);
    if ((l_.zero_stage == 1 || l_.zero_stage == 2) && l_.dp > 1)
      collective("updated weights", GroupKind::dp, Collective::allgather,
                 bytes(layers * w_.dense_params), true);
    return std::move(ops_);
  }

 private:
  std::size_t bytes(double params) const {
    return static_cast<std::size_t>(params * static_cast<double>(m_.dtype_bytes));
  }
  std::size_t dp_size() const { return static_cast<std::size_t>(l_.dp); }
  std::size_t expert_dp_size() const { return static_cast<std::size_t>(l_.dp / l_.ep); }
  double logits_flops() const {
    return 2.0 * l_.micro_batch_size * m_.sequence * m_.hidden * m_.vocab / l_.tp;
  }
  double logits_bytes() const {
    return static_cast<double>(m_.vocab) * m_.hidden / l_.tp * static_cast<double>(m_.dtype_bytes);
  }

  std::size_t add(Op op, bool on_compute_path) {
    op.after = pending_;
    if (on_compute_path) pending_.clear();
    ops_.push_back(std::move(op));
    return ops_.size() - 1;
  }
  // What the next op on the compute path waits for.
  void wait_for(std::size_t op) { pending_.push_back(op); }

  std::size_t compute(const std::string& label, double flops, double bytes,
                      Kernel kernel = Kernel::gemm) {
    Op op;
    op.kernel = kernel;
    op.label = label;
    op.flops = flops;
    op.bytes = bytes;
    const std::size_t i = add(std::move(op), true);
    pending_ = {i};
    return i;
  }
  std::size_t collective(const std::string& label, GroupKind g, Collective c, std::size_t size,
                         bool blocks_compute) {
    Op op;
    op.kind = Op::Kind::collective;
    op.label = label;
    op.group = g;
    op.collective = c;
    op.size = size;
    op.after = pending_;
    if (!blocks_compute) op.after = {last_compute()};
    ops_.push_back(std::move(op));
    return ops_.size() - 1;
  }
  std::size_t p2p(Op::Kind kind, const std::string& label, int stage, std::size_t size) {
    Op op;
    op.kind = kind;
    op.label = label;
    op.peer = rank_at(l_, {c_.tp, c_.dp, stage});
    op.size = size;
    // A receive waits for nothing here (its message does); a send for the pass's last compute.
    if (kind == Op::Kind::send) op.after = pending_;
    ops_.push_back(std::move(op));
    return ops_.size() - 1;
  }
  std::size_t last_compute() const {
    for (std::size_t i = ops_.size(); i-- > 0;)
      if (ops_[i].kind == Op::Kind::compute) return i;
    return 0;
  }
  // A block's compute and its tensor-parallel collectives (Megatron-LM's placement).
  void block(const std::string& label, double flops, double bytes) {
    const Kernel kernel =
        label.find("attention") != std::string::npos ? Kernel::attention : Kernel::gemm;
    if (l_.tp == 1) {
      compute(label, flops, bytes, kernel);
      return;
    }
    const std::size_t size = w_.activation;
    if (l_.sequence_parallel) {
      // Forward: gather the sequence, compute, scatter the sum; backward the same in reverse.
      wait_for(
          collective(label + " tp allgather", GroupKind::tp, Collective::allgather, size, true));
      compute(label, flops, bytes, kernel);
      wait_for(collective(label + " tp reduce-scatter", GroupKind::tp, Collective::reduce_scatter,
                          size, true));
      return;
    }
    // An allreduce after the block either way: g's in forward, f's (the input's gradient) in
    // backward.
    compute(label, flops, bytes, kernel);
    wait_for(collective(label + " tp allreduce", GroupKind::tp, Collective::allreduce, size, true));
  }

  const Transformer& m_;
  const ParallelLayout& l_;
  const Coordinates c_;
  const LayerWork w_;
  std::vector<Op> ops_;
  std::vector<std::size_t> pending_;
};

}  // namespace

std::vector<Op> step_graph(const Transformer& model, const ParallelLayout& layout, int rank) {
  check_layout(layout, model, layout.gpus());
  if (layout.schedule == PipelineSchedule::interleaved)
    throw InvalidArgument("layout " + layout.to_string() +
                          ": the interleaved schedule's step graph is not generated (its memory "
                          "is); use 1F1B");
  if (rank < 0 || rank >= layout.gpus())
    throw InvalidArgument("rank " + std::to_string(rank) + " is not one of the layout's " +
                          std::to_string(layout.gpus()));
  return Builder(model, layout, rank).build();
}

}  // namespace ddl::llm
