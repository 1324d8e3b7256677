// ProcessGroupDDL's collectives (process_group_ddl.hpp). torch's out-of-place collectives become
// ddl's in-place ones (ddl.h: block r of a buffer of p blocks is rank r's): where torch's output
// is one contiguous tensor of p blocks the collective runs on it directly, otherwise on one
// scratch buffer that the inputs are copied into and the outputs out of. Each checks its
// tensors first and refuses a bad call with the ranks kept in step (ProcessGroupDDL::refuse).
#include "python/c10d/completed_work.hpp"
#include "python/c10d/process_group_ddl.hpp"
#include "python/c10d/tensor_checks.hpp"

namespace ddl::c10d_backend {
namespace {

ddl_dtype_t dtype_of(const at::Tensor& t) {
  return *to_ddl_dtype(t.scalar_type());
}

// The whole of a contiguous tensor as one flat view, and its block i of p.
at::Tensor flat(const at::Tensor& t) {
  return t.view({-1});
}
at::Tensor block(const at::Tensor& flat_buffer, int i, int64_t n) {
  return flat_buffer.narrow(0, static_cast<int64_t>(i) * n, n);
}

}  // namespace

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::allreduce(std::vector<at::Tensor>& tensors,
                                                          const c10d::AllreduceOptions& opts) {
  constexpr const char* f = "all_reduce";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(tensors.size())) refuse(f, DDL_ALLREDUCE, *bad);
  at::Tensor& t = tensors[0];
  if (auto bad = check_tensor(t, "the tensor")) refuse(f, DDL_ALLREDUCE, *bad);
  const std::optional<ddl_op_t> op = to_ddl_op(opts.reduceOp);
  if (!op)
    refuse(f, DDL_ALLREDUCE,
           "ReduceOp " + op_name(opts.reduceOp) +
               " is not supported (the ddl backend reduces with SUM, PRODUCT, MIN, MAX, AVG)");
  run(f, DDL_ALLREDUCE, t.data_ptr(), t.numel(), dtype_of(t), *op, 0);
  return done(rank_, c10d::OpType::ALLREDUCE, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::broadcast(std::vector<at::Tensor>& tensors,
                                                          const c10d::BroadcastOptions& opts) {
  constexpr const char* f = "broadcast";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(tensors.size())) refuse(f, DDL_BROADCAST, *bad);
  at::Tensor& t = tensors[0];
  if (auto bad = check_tensor(t, "the tensor")) refuse(f, DDL_BROADCAST, *bad);
  const int root = root_of(f, DDL_BROADCAST, opts.rootRank);
  run(f, DDL_BROADCAST, t.data_ptr(), t.numel(), dtype_of(t), DDL_SUM, root);
  return done(rank_, c10d::OpType::BROADCAST, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::reduce(std::vector<at::Tensor>& tensors,
                                                       const c10d::ReduceOptions& opts) {
  constexpr const char* f = "reduce";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(tensors.size())) refuse(f, DDL_REDUCE, *bad);
  at::Tensor& t = tensors[0];
  if (auto bad = check_tensor(t, "the tensor")) refuse(f, DDL_REDUCE, *bad);
  const std::optional<ddl_op_t> op = to_ddl_op(opts.reduceOp);
  if (!op)
    refuse(f, DDL_REDUCE,
           "ReduceOp " + op_name(opts.reduceOp) +
               " is not supported (the ddl backend reduces with SUM, PRODUCT, MIN, MAX, AVG)");
  const int root = root_of(f, DDL_REDUCE, opts.rootRank);
  // ddl leaves the other ranks' buffers undefined; torch's MPI and NCCL backends leave their
  // tensors as they were, so they lend a copy.
  at::Tensor buffer = rank_ == root ? t : t.clone();
  run(f, DDL_REDUCE, buffer.data_ptr(), buffer.numel(), dtype_of(t), *op, root);
  return done(rank_, c10d::OpType::REDUCE, tensors);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::allgather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::AllgatherOptions&) {
  constexpr const char* f = "all_gather";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(inputs.size())) refuse(f, DDL_ALLGATHER, *bad);
  if (auto bad = check_single(outputs.size())) refuse(f, DDL_ALLGATHER, *bad);
  const at::Tensor& in = inputs[0];
  if (auto bad = check_tensor(in, "the input")) refuse(f, DDL_ALLGATHER, *bad);
  if (auto bad = check_list(outputs[0], size_, in, "output tensors", "the input"))
    refuse(f, DDL_ALLGATHER, *bad);
  const int64_t n = in.numel();
  at::Tensor buffer = at::empty({n * size_}, in.options());
  block(buffer, rank_, n).copy_(flat(in));
  run(f, DDL_ALLGATHER, buffer.data_ptr(), buffer.numel(), dtype_of(in), DDL_SUM, 0);
  for (int i = 0; i < size_; ++i) flat(outputs[0][i]).copy_(block(buffer, i, n));
  return done(rank_, c10d::OpType::ALLGATHER, outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::_allgather_base(at::Tensor& output,
                                                                at::Tensor& input,
                                                                const c10d::AllgatherOptions&) {
  constexpr const char* f = "all_gather_into_tensor";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_tensor(input, "the input")) refuse(f, DDL_ALLGATHER, *bad);
  if (auto bad = check_tensor(output, "the output")) refuse(f, DDL_ALLGATHER, *bad);
  const int64_t n = input.numel();
  if (output.scalar_type() != input.scalar_type() || output.numel() != n * size_)
    refuse(f, DDL_ALLGATHER,
           "the output must have the input's dtype and group size x its elements (" +
               std::string(c10::toString(input.scalar_type())) + ", " + std::to_string(n * size_) +
               "), it has " + std::string(c10::toString(output.scalar_type())) + ", " +
               std::to_string(output.numel()));
  at::Tensor mine = block(flat(output), rank_, n);
  if (mine.data_ptr() != input.data_ptr()) mine.copy_(flat(input));  // unless gathered in place
  run(f, DDL_ALLGATHER, output.data_ptr(), output.numel(), dtype_of(output), DDL_SUM, 0);
  return done(rank_, c10d::OpType::_ALLGATHER_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::gather(
    std::vector<std::vector<at::Tensor>>& outputs, std::vector<at::Tensor>& inputs,
    const c10d::GatherOptions& opts) {
  constexpr const char* f = "gather";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(inputs.size())) refuse(f, DDL_GATHER, *bad);
  const at::Tensor& in = inputs[0];
  if (auto bad = check_tensor(in, "the input")) refuse(f, DDL_GATHER, *bad);
  const int root = root_of(f, DDL_GATHER, opts.rootRank);
  if (rank_ == root) {
    if (auto bad = check_single(outputs.size())) refuse(f, DDL_GATHER, *bad);
    if (auto bad = check_list(outputs[0], size_, in, "output tensors", "the input"))
      refuse(f, DDL_GATHER, *bad);
  } else if (!outputs.empty()) {
    refuse(f, DDL_GATHER, "only the root passes output tensors (gather_list)");
  }
  const int64_t n = in.numel();
  at::Tensor buffer = at::empty({n * size_}, in.options());
  block(buffer, rank_, n).copy_(flat(in));
  run(f, DDL_GATHER, buffer.data_ptr(), buffer.numel(), dtype_of(in), DDL_SUM, root);
  if (rank_ != root) return done(rank_, c10d::OpType::GATHER, {});
  for (int i = 0; i < size_; ++i) flat(outputs[0][i]).copy_(block(buffer, i, n));
  return done(rank_, c10d::OpType::GATHER, outputs[0]);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ScatterOptions& opts) {
  constexpr const char* f = "scatter";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(outputs.size())) refuse(f, DDL_SCATTER, *bad);
  at::Tensor& out = outputs[0];
  if (auto bad = check_tensor(out, "the output")) refuse(f, DDL_SCATTER, *bad);
  const int root = root_of(f, DDL_SCATTER, opts.rootRank);
  if (rank_ == root) {
    if (auto bad = check_single(inputs.size())) refuse(f, DDL_SCATTER, *bad);
    if (auto bad = check_list(inputs[0], size_, out, "input tensors", "the output"))
      refuse(f, DDL_SCATTER, *bad);
  } else if (!inputs.empty()) {
    refuse(f, DDL_SCATTER, "only the root passes input tensors (scatter_list)");
  }
  const int64_t n = out.numel();
  at::Tensor buffer = at::empty({n * size_}, out.options());
  if (rank_ == root)
    for (int i = 0; i < size_; ++i) block(buffer, i, n).copy_(flat(inputs[0][i]));
  run(f, DDL_SCATTER, buffer.data_ptr(), buffer.numel(), dtype_of(out), DDL_SUM, root);
  flat(out).copy_(block(buffer, rank_, n));
  return done(rank_, c10d::OpType::SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::reduce_scatter(
    std::vector<at::Tensor>& outputs, std::vector<std::vector<at::Tensor>>& inputs,
    const c10d::ReduceScatterOptions& opts) {
  constexpr const char* f = "reduce_scatter";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_single(outputs.size())) refuse(f, DDL_REDUCE_SCATTER, *bad);
  if (auto bad = check_single(inputs.size())) refuse(f, DDL_REDUCE_SCATTER, *bad);
  at::Tensor& out = outputs[0];
  if (auto bad = check_tensor(out, "the output")) refuse(f, DDL_REDUCE_SCATTER, *bad);
  if (auto bad = check_list(inputs[0], size_, out, "input tensors", "the output"))
    refuse(f, DDL_REDUCE_SCATTER, *bad);
  const std::optional<ddl_op_t> op = to_ddl_op(opts.reduceOp);
  if (!op)
    refuse(f, DDL_REDUCE_SCATTER,
           "ReduceOp " + op_name(opts.reduceOp) +
               " is not supported (the ddl backend reduces with SUM, PRODUCT, MIN, MAX, AVG)");
  const int64_t n = out.numel();
  at::Tensor buffer = at::empty({n * size_}, out.options());
  for (int i = 0; i < size_; ++i) block(buffer, i, n).copy_(flat(inputs[0][i]));
  run(f, DDL_REDUCE_SCATTER, buffer.data_ptr(), buffer.numel(), dtype_of(out), *op, 0);
  flat(out).copy_(block(buffer, rank_, n));
  return done(rank_, c10d::OpType::REDUCE_SCATTER, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::_reduce_scatter_base(
    at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) {
  constexpr const char* f = "reduce_scatter_tensor";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_tensor(input, "the input")) refuse(f, DDL_REDUCE_SCATTER, *bad);
  if (auto bad = check_tensor(output, "the output")) refuse(f, DDL_REDUCE_SCATTER, *bad);
  const int64_t n = output.numel();
  if (output.scalar_type() != input.scalar_type() || input.numel() != n * size_)
    refuse(f, DDL_REDUCE_SCATTER,
           "the input must have the output's dtype and group size x its elements (" +
               std::string(c10::toString(output.scalar_type())) + ", " + std::to_string(n * size_) +
               "), it has " + std::string(c10::toString(input.scalar_type())) + ", " +
               std::to_string(input.numel()));
  const std::optional<ddl_op_t> op = to_ddl_op(opts.reduceOp);
  if (!op)
    refuse(f, DDL_REDUCE_SCATTER,
           "ReduceOp " + op_name(opts.reduceOp) +
               " is not supported (the ddl backend reduces with SUM, PRODUCT, MIN, MAX, AVG)");
  at::Tensor buffer = flat(input).clone();  // the input stays as it was
  run(f, DDL_REDUCE_SCATTER, buffer.data_ptr(), buffer.numel(), dtype_of(output), *op, 0);
  flat(output).copy_(block(buffer, rank_, n));
  return done(rank_, c10d::OpType::_REDUCE_SCATTER_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                              std::vector<int64_t>& output_splits,
                                                              std::vector<int64_t>& input_splits,
                                                              const c10d::AllToAllOptions&) {
  constexpr const char* f = "all_to_all_single";
  const std::lock_guard lock(mutex_);
  if (auto bad = check_tensor(input, "the input")) refuse(f, DDL_ALLTOALL, *bad);
  if (auto bad = check_like(output, input, "the output", "the input"))
    refuse(f, DDL_ALLTOALL, *bad);
  const int64_t rows = input.dim() == 0 ? 1 : input.size(0);
  if (rows % size_ != 0)
    refuse(f, DDL_ALLTOALL,
           "the input's first dimension (" + std::to_string(rows) +
               ") is not divisible by the group size (" + std::to_string(size_) + ")");
  const int64_t equal = rows / size_;
  auto unequal = [&](const std::vector<int64_t>& splits) {
    if (splits.empty()) return false;
    if (splits.size() != static_cast<std::size_t>(size_)) return true;
    for (const int64_t s : splits)
      if (s != equal) return true;
    return false;
  };
  if (unequal(input_splits) || unequal(output_splits))
    refuse(f, DDL_ALLTOALL,
           "unequal splits are not supported: ddl's all-to-all moves equal blocks (here " +
               std::to_string(equal) + " rows to each rank); pass no split sizes, or equal ones");
  if (output.data_ptr() != input.data_ptr()) flat(output).copy_(flat(input));
  run(f, DDL_ALLTOALL, output.data_ptr(), output.numel(), dtype_of(output), DDL_SUM, 0);
  return done(rank_, c10d::OpType::ALLTOALL_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::alltoall(std::vector<at::Tensor>& outputs,
                                                         std::vector<at::Tensor>& inputs,
                                                         const c10d::AllToAllOptions&) {
  constexpr const char* f = "all_to_all";
  const std::lock_guard lock(mutex_);
  if (inputs.empty()) refuse(f, DDL_ALLTOALL, "no input tensors (one per rank of the group)");
  const at::Tensor& first = inputs[0];
  if (auto bad = check_tensor(first, "input tensor 0")) refuse(f, DDL_ALLTOALL, *bad);
  if (auto bad = check_list(inputs, size_, first, "input tensors", "input tensor 0"))
    refuse(f, DDL_ALLTOALL, *bad);
  if (auto bad = check_list(outputs, size_, first, "output tensors", "input tensor 0"))
    refuse(f, DDL_ALLTOALL, *bad);
  const int64_t n = first.numel();
  at::Tensor buffer = at::empty({n * size_}, first.options());
  for (int i = 0; i < size_; ++i) block(buffer, i, n).copy_(flat(inputs[i]));
  run(f, DDL_ALLTOALL, buffer.data_ptr(), buffer.numel(), dtype_of(first), DDL_SUM, 0);
  for (int i = 0; i < size_; ++i) flat(outputs[i]).copy_(block(buffer, i, n));
  return done(rank_, c10d::OpType::ALLTOALL, outputs);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::barrier(const c10d::BarrierOptions&) {
  const std::lock_guard lock(mutex_);
  // The call's agreement alone is a barrier: a recursive-doubling exchange in which every rank
  // hears, through the others, from every rank. An allreduce of no elements is that and nothing
  // more.
  run("barrier", DDL_ALLREDUCE, nullptr, 0, DDL_INT32, DDL_SUM, 0);
  return done(rank_, c10d::OpType::BARRIER, {});
}

}  // namespace ddl::c10d_backend
