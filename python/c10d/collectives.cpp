// ProcessGroupDDL's collectives (process_group_ddl.hpp). torch's out-of-place collectives become
// ddl's in-place ones (ddl.h: block r of a buffer of p blocks is rank r's): where torch's output
// is one contiguous tensor of p blocks the collective runs on it directly, otherwise on one
// scratch buffer that the inputs are copied into and the outputs out of. Each checks its
// tensors first and refuses a bad call with the ranks kept in step (ProcessGroupDDL::refuse).
#include <cstring>

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

// Both all-to-alls run as ddl_alltoallv, split sizes or not: whether a rank's blocks are equal
// is its own affair (one rank may pass equal splits, another none, a third unequal ones, as
// gloo allows), so the ranks must not choose between two C calls by it.
c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::alltoall_base(at::Tensor& output, at::Tensor& input,
                                                              std::vector<int64_t>& output_splits,
                                                              std::vector<int64_t>& input_splits,
                                                              const c10d::AllToAllOptions&) {
  const std::lock_guard lock(mutex_);
  return alltoallv_base(output, input, output_splits, input_splits);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::alltoallv_base(
    at::Tensor& output, at::Tensor& input, const std::vector<int64_t>& output_splits,
    const std::vector<int64_t>& input_splits) {
  constexpr const char* f = "all_to_all_single";
  if (auto bad = check_tensor(input, "the input")) refuse_alltoallv(f, *bad);
  if (auto bad = check_tensor(output, "the output")) refuse_alltoallv(f, *bad);
  if (output.scalar_type() != input.scalar_type())
    refuse_alltoallv(f, "the output's dtype differs from the input's");
  // Rows of the first dimension, each of the same elements on both sides; no splits on one side:
  // equal ones, as torch's all_to_all_single takes them.
  auto counts = [&](const at::Tensor& t, const std::vector<int64_t>& splits, const char* what,
                    std::vector<std::size_t>& out) -> std::optional<std::string> {
    const int64_t rows = t.dim() == 0 ? 1 : t.size(0);
    if (splits.empty() && rows % size_ != 0)
      return std::string(what) + "'s first dimension (" + std::to_string(rows) +
             ") is not divisible by the group size (" + std::to_string(size_) + ")";
    if (!splits.empty() && splits.size() != static_cast<std::size_t>(size_))
      return std::string(what) + " has " + std::to_string(splits.size()) +
             " split sizes; the group has " + std::to_string(size_) + " ranks";
    int64_t total = 0;
    for (int64_t s : splits) {
      if (s < 0)
        return std::string(what) + " has a negative split size (" + std::to_string(s) + ")";
      total += s;
    }
    if (!splits.empty() && total != rows)
      return std::string(what) + "'s split sizes add up to " + std::to_string(total) +
             " rows; its first dimension is " + std::to_string(rows);
    const int64_t row = rows == 0 ? 0 : t.numel() / rows;
    for (int i = 0; i < size_; ++i)
      out.push_back(static_cast<std::size_t>(
          (splits.empty() ? rows / size_ : splits[static_cast<std::size_t>(i)]) * row));
    return std::nullopt;
  };
  std::vector<std::size_t> send, recv;
  if (auto bad = counts(input, input_splits, "the input", send)) refuse_alltoallv(f, *bad);
  if (auto bad = counts(output, output_splits, "the output", recv)) refuse_alltoallv(f, *bad);
  const int64_t in_row =
                    input.dim() == 0 || input.size(0) == 0 ? -1 : input.numel() / input.size(0),
                out_row =
                    output.dim() == 0 || output.size(0) == 0 ? -1 : output.numel() / output.size(0);
  if (in_row >= 0 && out_row >= 0 && in_row != out_row)
    refuse_alltoallv(f, "a row of the output holds " + std::to_string(out_row) +
                            " elements, a row of the input " + std::to_string(in_row));
  std::vector<std::size_t> send_displs(send.size()), recv_displs(recv.size());
  for (std::size_t j = 1; j < send.size(); ++j) {
    send_displs[j] = send_displs[j - 1] + send[j - 1];
    recv_displs[j] = recv_displs[j - 1] + recv[j - 1];
  }
  // torch lets the output be the input; ddl reads one buffer and writes another.
  const at::Tensor source = output.data_ptr() == input.data_ptr() ? input.clone() : input;
  const ddl_result_t r =
      ddl_alltoallv(comm_, source.data_ptr(), send.data(), send_displs.data(), output.data_ptr(),
                    recv.data(), recv_displs.data(), dtype_of(input), nullptr);
  if (r != DDL_SUCCESS) raise_api_error(f, r);
  return done(rank_, c10d::OpType::ALLTOALL_BASE, {output});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupDDL::alltoall(std::vector<at::Tensor>& outputs,
                                                         std::vector<at::Tensor>& inputs,
                                                         const c10d::AllToAllOptions&) {
  constexpr const char* f = "all_to_all";
  const std::lock_guard lock(mutex_);
  // Tensor i of either list is the block to or from rank i, each of its own length.
  auto counts = [&](const std::vector<at::Tensor>& list, const char* what,
                    std::vector<std::size_t>& out) -> std::optional<std::string> {
    if (list.size() != static_cast<std::size_t>(size_))
      return std::string(what) + ": " + std::to_string(list.size()) + " tensors, expected " +
             std::to_string(size_) + " (one per rank of the group)";
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string name = std::string(what, std::strlen(what) - 1) + " " + std::to_string(i);
      if (auto bad = check_tensor(list[i], name)) return bad;
      if (list[i].scalar_type() != list[0].scalar_type())
        return name + " has dtype " + std::string(c10::toString(list[i].scalar_type())) +
               ", input tensor 0 " + std::string(c10::toString(list[0].scalar_type()));
      out.push_back(static_cast<std::size_t>(list[i].numel()));
    }
    return std::nullopt;
  };
  std::vector<std::size_t> send, recv;
  if (auto bad = counts(inputs, "input tensors", send)) refuse_alltoallv(f, *bad);
  if (auto bad = counts(outputs, "output tensors", recv)) refuse_alltoallv(f, *bad);
  if (outputs[0].scalar_type() != inputs[0].scalar_type())
    refuse_alltoallv(f, "the output tensors' dtype differs from the input tensors'");
  std::vector<std::size_t> send_displs(send.size()), recv_displs(recv.size());
  for (std::size_t j = 1; j < send.size(); ++j) {
    send_displs[j] = send_displs[j - 1] + send[j - 1];
    recv_displs[j] = recv_displs[j - 1] + recv[j - 1];
  }
  at::Tensor in = at::empty({static_cast<int64_t>(send_displs.back() + send.back())},
                            inputs[0].options()),
             out = at::empty({static_cast<int64_t>(recv_displs.back() + recv.back())},
                             inputs[0].options());
  for (std::size_t i = 0; i < send.size(); ++i)
    in.narrow(0, static_cast<int64_t>(send_displs[i]), static_cast<int64_t>(send[i]))
        .copy_(flat(inputs[i]));
  const ddl_result_t r =
      ddl_alltoallv(comm_, in.data_ptr(), send.data(), send_displs.data(), out.data_ptr(),
                    recv.data(), recv_displs.data(), dtype_of(inputs[0]), nullptr);
  if (r != DDL_SUCCESS) raise_api_error(f, r);
  for (std::size_t i = 0; i < recv.size(); ++i)
    flat(outputs[i])
        .copy_(out.narrow(0, static_cast<int64_t>(recv_displs[i]), static_cast<int64_t>(recv[i])));
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
