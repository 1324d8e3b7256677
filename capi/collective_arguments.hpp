// The C API's checks of a collective call's arguments, made on each rank before the ranks agree
// on the call (real/mpi/call_agreement.hpp): what to run, or the code and the words of what is
// wrong.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "algorithms/alltoallv.hpp"
#include "algorithms/dims.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/types.hpp"
#include "ddl.h"

namespace ddl::capi {

// A call's arguments as this rank checked them: what to run, or why it cannot run.
struct Prepared {
  ddl_result_t code = DDL_SUCCESS;
  std::string what;  // the failure, without the function's name
  const ddl::Algorithm* algo = nullptr;
  ddl::Options options;
  ddl::DType dtype = ddl::DType::float32;
  ddl::ReduceOp op = ddl::ReduceOp::sum;
  std::size_t bytes = 0;
};

// A call: which collective (the caller's ddl_collective_t value, any int), rooted where, and
// the algorithm string. nullptr is refused unless `default_algorithm`: then it is the
// collective's default, auto for allreduce and the first registered algorithm otherwise.
struct CallKind {
  int collective = DDL_ALLREDUCE;
  int root = 0;
  const char* algorithm = nullptr;
  bool default_algorithm = false;
};

// Every check of a call that needs no other rank, in the order the caller's mistakes are named
// (a collective outside ddl_collective_t first):
// `dims` is the communicator's node grid (its rank count bounds the root), which the algorithm
// string's own overrides; dtype and op are the caller's ints, any value.
Prepared prepare(const ddl::Dims& dims, bool out_of_place, const void* sendbuf, void* buf,
                 std::size_t count, int dtype_value, int op_value, const CallKind& call);

// An all-to-all-v call as this rank checked it: what to run, or why it cannot run.
struct PreparedAlltoallv {
  ddl_result_t code = DDL_SUCCESS;
  std::string what;
  ddl::AlltoallvAlgorithm algorithm = ddl::AlltoallvAlgorithm::pairwise;
  ddl::DType dtype = ddl::DType::float32;
  ddl::AlltoallvLayout send, recv;
  std::size_t input_bytes = 0, output_bytes = 0;  // to the end of the furthest range
};

// Every check of ddl_alltoallv's arguments that needs no other rank (`ranks`: the
// communicator's size, `rank`: this rank).
PreparedAlltoallv prepare_alltoallv(int ranks, int rank, const void* sendbuf,
                                    const std::size_t* send_counts, const std::size_t* send_displs,
                                    const void* recvbuf, const std::size_t* recv_counts,
                                    const std::size_t* recv_displs, int dtype_value,
                                    const char* algorithm);

// The element type of a ddl_dtype_t value; nothing outside the enum.
std::optional<ddl::DType> to_dtype(int v);

}  // namespace ddl::capi
