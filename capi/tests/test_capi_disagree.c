/* Ranks that call ddl_allreduce with different arguments, under mpirun (2..4 ranks): the last
 * rank differs in one argument at a time (count, dtype, op, algorithm, segment, a refused
 * dtype) and every rank must get the one error naming it, never a crash, a hang or a result;
 * matching calls before and after must still be exact. Rank 1000000 floats against 1000 is the
 * case that crashed in Open MPI (a message longer than the posted receive). */
#include <ddl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, ranks, failures;

/* Every rank: `got` must be `code` with exactly `message`. */
static void expect(ddl_result_t got, ddl_result_t code, const char* message, int line) {
  if (got != code || strcmp(ddl_last_error_message(), message) != 0) {
    fprintf(stderr, "rank %d: line %d: got %s \"%s\", expected %s \"%s\"\n", rank, line,
            ddl_result_string(got), ddl_last_error_message(), ddl_result_string(code), message);
    ++failures;
  }
}
#define EXPECT(call, code, message) expect((call), (code), (message), __LINE__)

/* In place over int32 values rank + 1 + i % 3: checks the exact sum. */
static void expect_exact_sum(ddl_comm_t comm, size_t count, const char* algo, int line) {
  int32_t* x = malloc(count * sizeof *x);
  for (size_t i = 0; i < count; ++i) x[i] = rank + 1 + (int32_t)(i % 3);
  const ddl_result_t rc = ddl_allreduce_inplace(comm, x, count, DDL_INT32, DDL_SUM, algo);
  size_t wrong = 0;
  for (size_t i = 0; rc == DDL_SUCCESS && i < count; ++i)
    if (x[i] != ranks * (ranks + 1) / 2 + ranks * (int32_t)(i % 3)) ++wrong;
  if (rc != DDL_SUCCESS || wrong) {
    fprintf(stderr, "rank %d: line %d: %s, %zu wrong: %s\n", rank, line, ddl_result_string(rc),
            wrong, ddl_last_error_message());
    ++failures;
  }
  free(x);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks < 2) {
    fprintf(stderr, "test_capi_disagree needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  ddl_comm_t comm = NULL;
  if (ddl_comm_create(MPI_COMM_WORLD, &comm) != DDL_SUCCESS) {
    fprintf(stderr, "rank %d: ddl_comm_create: %s\n", rank, ddl_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* A disagreement that went unnoticed would wait: end within seconds, not ctest's limit. */
  ddl_comm_set_timeout(comm, 20);
  const int odd = rank == ranks - 1; /* the rank that differs */
  char message[256];
  const size_t big = 1000000, small = 1000;
  float* x = calloc(big, sizeof *x);
  expect_exact_sum(comm, 1027, "ring", __LINE__);
  if (strcmp(ddl_result_string(DDL_ERROR_RANKS_DISAGREE), "DDL_ERROR_RANKS_DISAGREE") != 0) {
    fprintf(stderr, "rank %d: ddl_result_string(11) is \"%s\"\n", rank,
            ddl_result_string(DDL_ERROR_RANKS_DISAGREE));
    ++failures;
  }

  const char* const algos[] = {"auto", "direct", "ring", "rhd", "rd", "ddl", "dbtree"};
  for (size_t a = 0; a < sizeof algos / sizeof *algos; ++a) {
    snprintf(message, sizeof message,
             "ddl_allreduce_inplace: ranks disagree on the call: rank %d has count %zu, rank 0 "
             "has count %zu",
             ranks - 1, big, small);
    EXPECT(ddl_allreduce_inplace(comm, x, odd ? big : small, DDL_FLOAT32, DDL_SUM, algos[a]),
           DDL_ERROR_RANKS_DISAGREE, message);
  }
  snprintf(message, sizeof message,
           "ddl_allreduce: ranks disagree on the call: rank %d has dtype double, rank 0 has "
           "dtype float",
           ranks - 1);
  EXPECT(ddl_allreduce(comm, x, x, small, odd ? DDL_FLOAT64 : DDL_FLOAT32, DDL_SUM, "ring"),
         DDL_ERROR_RANKS_DISAGREE, message);
  snprintf(message, sizeof message,
           "ddl_allreduce_inplace: ranks disagree on the call: rank %d has op max, rank 0 has op "
           "sum",
           ranks - 1);
  EXPECT(ddl_allreduce_inplace(comm, x, small, DDL_FLOAT32, odd ? DDL_MAX : DDL_SUM, "ring"),
         DDL_ERROR_RANKS_DISAGREE, message);
  snprintf(message, sizeof message,
           "ddl_allreduce_inplace: ranks disagree on the call: rank %d has algorithm rhd, rank 0 "
           "has algorithm ring",
           ranks - 1);
  EXPECT(ddl_allreduce_inplace(comm, x, small, DDL_FLOAT32, DDL_SUM, odd ? "rhd" : "ring"),
         DDL_ERROR_RANKS_DISAGREE, message);
  snprintf(message, sizeof message,
           "ddl_allreduce_inplace: ranks disagree on the call: rank %d has segment 64, rank 0 "
           "has segment 0",
           ranks - 1);
  EXPECT(
      ddl_allreduce_inplace(comm, x, small, DDL_FLOAT32, DDL_SUM, odd ? "ring:segment=64" : "ring"),
      DDL_ERROR_RANKS_DISAGREE, message);
  /* All-to-all-v: the last rank sends rank 0 three elements where rank 0 expects two; then
   * ranks that name different algorithms. Every rank gets the same words, nothing moves. */
  {
    size_t* v = calloc(4 * (size_t)ranks, sizeof *v);
    size_t *sc = v, *sd = v + ranks, *rc = v + 2 * ranks, *rd = v + 3 * ranks;
    for (int j = 0; j < ranks; ++j) sc[j] = rc[j] = 2, sd[j] = rd[j] = 2 * (size_t)j;
    if (odd) sc[0] = 3, sd[0] = 2 * (size_t)ranks;
    snprintf(message, sizeof message,
             "ddl_alltoallv: ranks disagree on the all-to-all-v counts: rank %d sends 3 elements "
             "to rank 0, which receives 2",
             ranks - 1);
    EXPECT(ddl_alltoallv(comm, x, sc, sd, x + 1000, rc, rd, DDL_FLOAT32, NULL),
           DDL_ERROR_RANKS_DISAGREE, message);
    if (odd) sc[0] = 2, sd[0] = 0;
    snprintf(message, sizeof message,
             "ddl_alltoallv: ranks disagree on the call: rank %d has algorithm alltoallv_linear, "
             "rank 0 has algorithm alltoallv_pairwise",
             ranks - 1);
    EXPECT(ddl_alltoallv(comm, x, sc, sd, x + 1000, rc, rd, DDL_FLOAT32,
                         odd ? "alltoallv_linear" : NULL),
           DDL_ERROR_RANKS_DISAGREE, message);
    if (ddl_alltoallv(comm, x, sc, sd, x + 1000, rc, rd, DDL_FLOAT32, NULL) != DDL_SUCCESS) {
      fprintf(stderr, "rank %d: matching all-to-all-v counts: %s\n", rank,
              ddl_last_error_message());
      ++failures;
    }
    free(v);
  }
  /* Several fields at once: all of them, in the signature's order. */
  snprintf(message, sizeof message,
           "ddl_allreduce_inplace: ranks disagree on the call: rank %d has count 8 and op min, "
           "rank 0 has count 4 and op sum",
           ranks - 1);
  EXPECT(ddl_allreduce_inplace(comm, x, odd ? 8 : 4, DDL_FLOAT32, odd ? DDL_MIN : DDL_SUM, "ring"),
         DDL_ERROR_RANKS_DISAGREE, message);
  /* One rank's arguments refused: it gets its own error, the others learn why. */
  const char* bad_dtype = "dtype 42 is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 are 0 .. 5)";
  if (odd) {
    snprintf(message, sizeof message, "ddl_allreduce_inplace: %s", bad_dtype);
    EXPECT(ddl_allreduce_inplace(comm, x, small, (ddl_dtype_t)42, DDL_SUM, "ring"),
           DDL_ERROR_BAD_DTYPE, message);
  } else {
    snprintf(message, sizeof message,
             "ddl_allreduce_inplace: ranks disagree on the call: rank %d could not make the "
             "call: %s",
             ranks - 1, bad_dtype);
    EXPECT(ddl_allreduce_inplace(comm, x, small, DDL_FLOAT32, DDL_SUM, "ring"),
           DDL_ERROR_RANKS_DISAGREE, message);
  }
  /* ddl_collective_inplace: a collective outside the enum on one rank is its refusal too. */
  const char* bad_collective =
      "collective 9 is not a ddl_collective_t (DDL_ALLREDUCE .. DDL_SENDRECV are 0 .. 8)";
  if (odd) {
    snprintf(message, sizeof message, "ddl_collective_inplace: %s", bad_collective);
    EXPECT(
        ddl_collective_inplace(comm, (ddl_collective_t)9, x, small, DDL_FLOAT32, DDL_SUM, 0, NULL),
        DDL_ERROR_INVALID_ARGUMENT, message);
  } else {
    snprintf(message, sizeof message,
             "ddl_collective_inplace: ranks disagree on the call: rank %d could not make the "
             "call: %s",
             ranks - 1, bad_collective);
    EXPECT(ddl_collective_inplace(comm, DDL_GATHER, x, small, DDL_FLOAT32, DDL_SUM, 0, NULL),
           DDL_ERROR_RANKS_DISAGREE, message);
  }
  /* Another root on one rank: every rank names it. */
  snprintf(message, sizeof message,
           "ddl_collective_inplace: ranks disagree on the call: rank %d has root 1, rank 0 has "
           "root 0",
           ranks - 1);
  EXPECT(
      ddl_collective_inplace(comm, DDL_REDUCE, x, small, DDL_FLOAT32, DDL_SUM, odd ? 1 : 0, NULL),
      DDL_ERROR_RANKS_DISAGREE, message);
  /* An all-to-all whose count differs on one rank: an error on every rank, not a receive of
   * another size (blocks of count / p elements differ too). */
  snprintf(message, sizeof message,
           "ddl_collective_inplace: ranks disagree on the call: rank %d has count %zu, rank 0 has "
           "count %zu",
           ranks - 1, 2 * small, small);
  EXPECT(ddl_collective_inplace(comm, DDL_ALLTOALL, x, odd ? 2 * small : small, DDL_FLOAT32,
                                DDL_SUM, 0, "alltoall_pairwise"),
         DDL_ERROR_RANKS_DISAGREE, message);
  /* The communicator is still in step: matching calls are exact. */
  expect_exact_sum(comm, 1027, "ring", __LINE__);
  expect_exact_sum(comm, big, "auto", __LINE__);

  free(x);
  ddl_comm_destroy(comm);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_capi_disagree: %d ranks, %d failed checks\n", ranks, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
