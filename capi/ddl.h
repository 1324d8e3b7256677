/* ddl's C API: the topology-aware collectives of ddl on an MPI communicator, for programs in C
 * or any language with a C foreign-function interface.
 *
 * A small surface that stays stable: an opaque communicator made from an MPI_Comm and its groups
 * (ddl_comm_split), allreduce in place and out of place, every other collective in place
 * (ddl_collective_inplace), and plain error codes with a message. Every function returns a
 * ddl_result_t; on failure ddl_last_error_message() says what was wrong, in words. No C++
 * exception ever leaves these functions.
 *
 * Collective calls (ddl_comm_create, ddl_comm_split, ddl_allreduce*, ddl_collective_inplace,
 * ddl_comm_destroy) must be made by every rank of the communicator, in the same order, with the
 * same count, dtype, op, root and algorithm, as for MPI collectives. MPI must be initialised before
 * ddl_comm_create and finalised only after every ddl communicator is destroyed. One thread at a
 * time may use one communicator.
 *
 * Unlike MPI, ddl checks the collective calls: before any data moves, the ranks compare the
 * call (count, dtype, op, the algorithm and the grid, methods, rings, segment, order and root it
 * runs with) through a recursive-doubling exchange of a 16-byte hash (log2(ranks) rounds). Where
 * they differ, every rank whose own arguments were valid gets DDL_ERROR_RANKS_DISAGREE with the
 * same message, e.g. "ddl_allreduce: ranks disagree on the call: rank 1 has count 1000000,
 * rank 0 has count 1000", or "... rank 1 could not make the call: op 7 is not a ddl_op_t ..."
 * when another rank's arguments were refused (that rank gets its own code). Without the check a
 * longer message than a rank expects corrupts its memory inside Open MPI, and a different op
 * gives a wrong result silently. The check costs latency on small calls: on the 2-core test
 * machine it adds 2-5 us to a 2-rank allreduce of up to 4 KB (twice the time of an 8-byte one),
 * 6 % at 256 KB and nothing measurable at 2 MB (real/README.md, "Calls from programs").
 *
 * Link: CMake `find_package(ddl)` and `target_link_libraries(app PRIVATE ddl::c)`, or
 * `mpicc app.c -I<prefix>/include -L<prefix>/lib -lddl`.
 */
#ifndef DDL_H
#define DDL_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DDL_API __attribute__((visibility("default")))
#else
#define DDL_API
#endif

/* Return codes. The values are part of the API and never change. */
typedef enum ddl_result {
  DDL_SUCCESS = 0,
  DDL_ERROR_NULL_POINTER = 1,      /* a required pointer argument is NULL */
  DDL_ERROR_BAD_DTYPE = 2,         /* dtype is not one of ddl_dtype_t */
  DDL_ERROR_BAD_OP = 3,            /* op is not one of ddl_op_t */
  DDL_ERROR_UNKNOWN_ALGORITHM = 4, /* the algorithm string names no algorithm of the collective */
  DDL_ERROR_COUNT_OVERFLOW = 5,    /* count * element size does not fit in size_t */
  DDL_ERROR_INVALID_ARGUMENT = 6,  /* any other bad argument (timeout, overlapping buffers...) */
  DDL_ERROR_TIMEOUT = 7,           /* a wait ran past the communicator's timeout */
  DDL_ERROR_MPI = 8,               /* an MPI call failed */
  DDL_ERROR_OUT_OF_MEMORY = 9,     /* scratch or bookkeeping could not be allocated */
  DDL_ERROR_INTERNAL = 10,         /* anything else: a bug in ddl, please report it */
  DDL_ERROR_RANKS_DISAGREE = 11    /* another rank called with other arguments (see above) */
} ddl_result_t;

/* Element types (the names ddlrun's -d accepts in parentheses). */
typedef enum ddl_dtype {
  DDL_FLOAT32 = 0,  /* float */
  DDL_FLOAT64 = 1,  /* double */
  DDL_FLOAT16 = 2,  /* half: IEEE 754 binary16 bits in a uint16_t */
  DDL_BFLOAT16 = 3, /* bfloat16: the upper 16 bits of a float */
  DDL_INT32 = 4,    /* int32 */
  DDL_INT64 = 5     /* int64 */
} ddl_dtype_t;

/* Reduction operators. DDL_AVG is the sum divided by the number of ranks. */
typedef enum ddl_op { DDL_SUM = 0, DDL_PROD = 1, DDL_MIN = 2, DDL_MAX = 3, DDL_AVG = 4 } ddl_op_t;

/* A communicator: opaque, made by ddl_comm_create, freed by ddl_comm_destroy. */
typedef struct ddl_comm* ddl_comm_t;

/* Collective over `comm`: makes a ddl communicator on a duplicate of `comm` (so its messages
 * never mix with the caller's) and reads the node layout (ranks per node x nodes), which is the
 * grid the `ddl` algorithm follows. The timeout of every later wait starts at 300 s. */
DDL_API ddl_result_t ddl_comm_create(MPI_Comm comm, ddl_comm_t* out);

/* Frees the communicator and its duplicate of the MPI communicator. NULL is accepted and does
 * nothing, as free(NULL). */
DDL_API ddl_result_t ddl_comm_destroy(ddl_comm_t comm);

DDL_API ddl_result_t ddl_comm_rank(ddl_comm_t comm, int* rank);
DDL_API ddl_result_t ddl_comm_size(ddl_comm_t comm, int* size);

/* Bound of every wait of later collectives, in seconds: finite and > 0. A collective that
 * runs past it returns DDL_ERROR_TIMEOUT naming the rank, peer and operation it waited for;
 * the communicator should then be destroyed, as its peers are in an unknown state. */
DDL_API ddl_result_t ddl_comm_set_timeout(ddl_comm_t comm, double seconds);

/* Reduces `count` elements of every rank's `buf` and leaves the result in every rank's `buf`.
 * `algorithm`: one algorithm string as ddlrun's --algo takes it: a name ("auto" picks by the
 * cost model for the size; "ring", "ddl", "rhd", "dbtree", "hier"), optionally followed by the
 * grid, ddl's methods and keys, e.g. "ddl:2x2:ring,hd:rings=2" or "ring:segment=65536"
 * (algorithms/algorithm_spec.hpp). Without a grid, ddl and hier follow the node layout read by
 * ddl_comm_create. A name that is no allreduce algorithm gives DDL_ERROR_UNKNOWN_ALGORITHM, a
 * bad field DDL_ERROR_INVALID_ARGUMENT. A count of 0 moves no data (the ranks still agree on the
 * call), and then `buf` may be NULL. */
DDL_API ddl_result_t ddl_allreduce_inplace(ddl_comm_t comm, void* buf, size_t count,
                                           ddl_dtype_t dtype, ddl_op_t op, const char* algorithm);

/* As ddl_allreduce_inplace, reading `sendbuf` (left unchanged) and writing `recvbuf`. The same
 * pointer for both is the in-place call; buffers that overlap otherwise are refused. */
DDL_API ddl_result_t ddl_allreduce(ddl_comm_t comm, const void* sendbuf, void* recvbuf,
                                   size_t count, ddl_dtype_t dtype, ddl_op_t op,
                                   const char* algorithm);

/* The collectives of ddl_collective_inplace, in ddl's order (ddlsim --coll). */
typedef enum ddl_collective {
  DDL_ALLREDUCE = 0,
  DDL_REDUCE_SCATTER = 1,
  DDL_ALLGATHER = 2,
  DDL_BROADCAST = 3,
  DDL_ALLTOALL = 4,
  DDL_REDUCE = 5,
  DDL_GATHER = 6,
  DDL_SCATTER = 7,
  DDL_SENDRECV = 8
} ddl_collective_t;

/* Any collective in place on `count` elements of `buf` (as with MPI_IN_PLACE), with p ranks and
 * block r = rank r's share of the buffer (count split into p element-aligned blocks, the first
 * count % p one element longer):
 *   DDL_ALLREDUCE       every rank ends with the reduction;
 *   DDL_REDUCE_SCATTER  rank r's block r ends with the reduction of everyone's block r;
 *   DDL_ALLGATHER       block r of rank r is its input; every rank ends with every block;
 *   DDL_BROADCAST       every rank ends with the root's buffer;
 *   DDL_ALLTOALL        blocks of count / p elements: block j of rank r goes to block r of rank
 *                       j (the last count % p elements stay as they are);
 *   DDL_REDUCE          the root ends with the reduction (other ranks' buffers: undefined);
 *   DDL_GATHER          block r of rank r is its input; the root ends with every block;
 *   DDL_SCATTER         rank r's block r ends with the root's block r;
 *   DDL_SENDRECV        every rank sends its buffer to rank r+1 and receives rank r-1's.
 * `root` (0 .. size-1) is read by broadcast, reduce, gather and scatter and must be a rank for
 * every collective; `op` is read by the reducing ones and must be a ddl_op_t for every one.
 * `algorithm`: NULL for the collective's default ("auto" for allreduce, else its first
 * algorithm), or an algorithm string of that collective, e.g. "alltoall_bruck" or
 * "reduce_binomial" (ddlsim --help lists them by collective); another collective's algorithm
 * gives DDL_ERROR_UNKNOWN_ALGORITHM. The ranks agree on the call (collective, count, dtype, op,
 * root, algorithm) as for ddl_allreduce. */
DDL_API ddl_result_t ddl_collective_inplace(ddl_comm_t comm, ddl_collective_t collective, void* buf,
                                            size_t count, ddl_dtype_t dtype, ddl_op_t op, int root,
                                            const char* algorithm);

/* All-to-all with a count per peer (MPI_Alltoallv; a mixture-of-experts layer's token routing):
 * rank r sends send_counts[j] elements from sendbuf + send_displs[j] elements to rank j, and
 * receives recv_counts[i] elements from rank i at recvbuf + recv_displs[i] elements; each array
 * has one entry per rank of `comm`. The send and receive buffers must not overlap, nor two
 * receive ranges; send_counts[r] must equal recv_counts[r] (the block a rank keeps). The ranks
 * agree on the call (dtype, algorithm) and then on the counts: rank i's send_counts[j] must be
 * rank j's recv_counts[i], else every rank gets DDL_ERROR_RANKS_DISAGREE naming the first pair
 * that differs, before any data moves. `algorithm`: NULL or "alltoallv_pairwise" (p-1 steps,
 * one peer each way per step), "alltoallv_linear" (every peer at once) or "alltoallv_hier" (in
 * the node, then one step per other node along the rails: the communicator's node grid). */
DDL_API ddl_result_t ddl_alltoallv(ddl_comm_t comm, const void* sendbuf, const size_t* send_counts,
                                   const size_t* send_displs, void* recvbuf,
                                   const size_t* recv_counts, const size_t* recv_displs,
                                   ddl_dtype_t dtype, const char* algorithm);

/* Groups, as MPI_Comm_split: collective over every rank of `comm`; the ranks that pass one color
 * form a new communicator in *out, ranked by key and then by their rank in `comm`; a negative
 * color leaves *out NULL (the rank is in no group). The group reads its own node layout (so ddl
 * and hier follow its members' places in the machine) and keeps `comm`'s timeout. Destroy it
 * with ddl_comm_destroy before `comm`. */
DDL_API ddl_result_t ddl_comm_split(ddl_comm_t comm, int color, int key, ddl_comm_t* out);

/* Size in bytes of one element of `dtype`; 0 for a value outside ddl_dtype_t. */
DDL_API size_t ddl_dtype_size(ddl_dtype_t dtype);

/* The code's name, e.g. "DDL_ERROR_TIMEOUT"; "unknown ddl_result_t" outside the enum. */
DDL_API const char* ddl_result_string(ddl_result_t result);

/* What the last failed call on this thread found wrong, e.g. "ddl_allreduce: unknown algorithm
 * 'rign' (known: auto, ring, ...)"; "" while no call on this thread has failed. Valid until the
 * next failing call on this thread. */
DDL_API const char* ddl_last_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* DDL_H */
