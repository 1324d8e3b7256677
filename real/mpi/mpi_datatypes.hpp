// ddl's element types and reductions as MPI's, for the library's own allreduce (native, the
// sweeps' MPI_Allreduce baseline).
#pragma once

#include <mpi.h>

#include "algorithms/types.hpp"

namespace ddl {

// MPI_DATATYPE_NULL where MPI has no such type (16-bit floats).
inline MPI_Datatype mpi_type(DType t) {
  switch (t) {
    case DType::float32: return MPI_FLOAT;
    case DType::float64: return MPI_DOUBLE;
    case DType::int32: return MPI_INT32_T;
    case DType::int64: return MPI_INT64_T;
    default: return MPI_DATATYPE_NULL;
  }
}

// avg has no MPI op: it is reduced as a sum (the part that costs) and divided afterwards.
inline MPI_Op mpi_op(ReduceOp op) {
  switch (op) {
    case ReduceOp::prod: return MPI_PROD;
    case ReduceOp::min: return MPI_MIN;
    case ReduceOp::max: return MPI_MAX;
    default: return MPI_SUM;
  }
}

}  // namespace ddl
