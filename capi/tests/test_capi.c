/* The C API under mpirun, in C: exact results of every allreduce algorithm for every dtype and
 * op, in place and out of place; the other collectives and groups by hand; every bad argument's
 * code and message; the message is per
 * thread. `test_capi timeout` (2 ranks): a rank that never joins makes the other's allreduce
 * return DDL_ERROR_TIMEOUT naming what it waited for.
 *
 * Data: small integers (and halves for avg) so every partial result is exact in every dtype,
 * whatever order an algorithm reduces in. Every rank checks its own result; the exit status is
 * non-zero when any check on any rank failed. */
#include <ddl.h>
#include <math.h>
#include <mpi.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, ranks, failures;

#define CHECK(cond)                                                                    \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      fprintf(stderr, "rank %d: %s:%d: CHECK(%s)\n", rank, __FILE__, __LINE__, #cond); \
      ++failures;                                                                      \
    }                                                                                  \
  } while (0)

/* Expects `call` to return `code` with exactly `message`. */
static void expect_error(ddl_result_t got, ddl_result_t code, const char* message, int line) {
  if (got != code || strcmp(ddl_last_error_message(), message) != 0) {
    fprintf(stderr, "rank %d: line %d: got %s \"%s\", expected %s \"%s\"\n", rank, line,
            ddl_result_string(got), ddl_last_error_message(), ddl_result_string(code), message);
    ++failures;
  }
}
#define EXPECT_ERROR(call, code, message) expect_error((call), (code), (message), __LINE__)

/* IEEE binary16 bits of v, exact for the values used here (integers below 2048, halves). */
static uint16_t to_half(double v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  int e = 0;
  const double m = frexp(fabs(v), &e); /* |v| = m * 2^e, m in [0.5, 1) */
  return (uint16_t)(sign | ((e - 1 + 15) << 10) | (int)((2 * m - 1) * 1024));
}
static double from_half(uint16_t h) {
  const int e = (h >> 10) & 31, f = h & 1023;
  const double v = e == 0 ? ldexp(f, -24) : ldexp(1024 + f, e - 25);
  return (h & 0x8000) ? -v : v;
}
static uint16_t to_bf16(double v) {
  const float f = (float)v;
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return (uint16_t)(bits >> 16);
}
static double from_bf16(uint16_t b) {
  const uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static void store(void* buf, size_t i, ddl_dtype_t t, double v) {
  switch (t) {
    case DDL_FLOAT32: ((float*)buf)[i] = (float)v; break;
    case DDL_FLOAT64: ((double*)buf)[i] = v; break;
    case DDL_FLOAT16: ((uint16_t*)buf)[i] = to_half(v); break;
    case DDL_BFLOAT16: ((uint16_t*)buf)[i] = to_bf16(v); break;
    case DDL_INT32: ((int32_t*)buf)[i] = (int32_t)v; break;
    case DDL_INT64: ((int64_t*)buf)[i] = (int64_t)v; break;
  }
}
static double load(const void* buf, size_t i, ddl_dtype_t t) {
  switch (t) {
    case DDL_FLOAT32: return ((const float*)buf)[i];
    case DDL_FLOAT64: return ((const double*)buf)[i];
    case DDL_FLOAT16: return from_half(((const uint16_t*)buf)[i]);
    case DDL_BFLOAT16: return from_bf16(((const uint16_t*)buf)[i]);
    case DDL_INT32: return ((const int32_t*)buf)[i];
    case DDL_INT64: return (double)((const int64_t*)buf)[i];
  }
  return NAN;
}

/* Element i of rank r, and the exact reduction over `ranks` ranks. */
static double input(ddl_op_t op, int r, size_t i) {
  switch (op) {
    case DDL_SUM: return (r + 1) + (double)(i % 5);
    case DDL_PROD: return 1 + (double)((r + i) % 2); /* 1 or 2: products are powers of 2 */
    case DDL_MIN:
    case DDL_MAX: return (double)((r * 7 + (int)(i % 11)) % 11) - 5;
    case DDL_AVG: return (double)(i % 5) + 2 * r; /* the mean is i % 5 + ranks - 1 */
  }
  return NAN;
}
static double expected(ddl_op_t op, size_t i) {
  double acc = input(op, 0, i);
  for (int r = 1; r < ranks; ++r) {
    const double x = input(op, r, i);
    if (op == DDL_SUM || op == DDL_AVG) acc += x;
    if (op == DDL_PROD) acc *= x;
    if (op == DDL_MIN) acc = x < acc ? x : acc;
    if (op == DDL_MAX) acc = x > acc ? x : acc;
  }
  return op == DDL_AVG ? acc / ranks : acc;
}

static const char* const kAlgorithms[] = {"ring", "ddl", "rhd", "dbtree", "hier", "auto"};
static const char* const kDtypeNames[] = {"float", "double", "half", "bfloat16", "int32", "int64"};
static const char* const kOpNames[] = {"sum", "prod", "min", "max", "avg"};

/* One allreduce, checked element by element; returns the number of wrong elements. */
static size_t run_case(ddl_comm_t comm, const char* algo, ddl_dtype_t t, ddl_op_t op, size_t count,
                       int in_place) {
  const size_t bytes = count * ddl_dtype_size(t) + 1; /* + 1: malloc(0) may return NULL */
  unsigned char* send = malloc(bytes);
  unsigned char* recv = malloc(bytes);
  for (size_t i = 0; i < count; ++i) store(send, i, t, input(op, rank, i));
  ddl_result_t rc;
  if (in_place) {
    memcpy(recv, send, bytes);
    rc = ddl_allreduce_inplace(comm, recv, count, t, op, algo);
  } else {
    memset(recv, 0xAB, bytes);
    rc = ddl_allreduce(comm, send, recv, count, t, op, algo);
  }
  size_t wrong = 0;
  if (rc != DDL_SUCCESS) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, ddl_result_string(rc), ddl_last_error_message());
    wrong = count + 1;
  }
  for (size_t i = 0; rc == DDL_SUCCESS && i < count; ++i) {
    if (load(recv, i, t) != expected(op, i)) ++wrong;
    if (!in_place && load(send, i, t) != input(op, rank, i)) ++wrong; /* sendbuf untouched */
  }
  if (wrong)
    fprintf(stderr, "rank %d: %s %s %s count %zu %s: %zu wrong\n", rank, algo, kDtypeNames[t],
            kOpNames[op], count, in_place ? "in place" : "out of place", wrong);
  free(send);
  free(recv);
  return wrong;
}

static void test_results(ddl_comm_t comm) {
  const size_t counts[] = {1, (size_t)ranks + 1, 1027};
  for (size_t a = 0; a < sizeof kAlgorithms / sizeof *kAlgorithms; ++a) {
    for (int t = DDL_FLOAT32; t <= DDL_INT64; ++t)
      for (int op = DDL_SUM; op <= DDL_AVG; ++op)
        for (size_t c = 0; c < sizeof counts / sizeof *counts; ++c)
          CHECK(run_case(comm, kAlgorithms[a], (ddl_dtype_t)t, (ddl_op_t)op, counts[c],
                         (int)((c + op) % 2)) == 0);
    /* Zero elements, NULL buffers: nothing to do, success. */
    CHECK(ddl_allreduce_inplace(comm, NULL, 0, DDL_FLOAT32, DDL_SUM, kAlgorithms[a]) ==
          DDL_SUCCESS);
    CHECK(ddl_allreduce(comm, NULL, NULL, 0, DDL_FLOAT32, DDL_SUM, kAlgorithms[a]) == DDL_SUCCESS);
    /* 4 MiB: many segments and pieces. */
    CHECK(run_case(comm, kAlgorithms[a], DDL_FLOAT32, DDL_SUM, (size_t)1 << 20, 0) == 0);
  }
  /* Algorithm strings with fields: the grid, methods and keys for this call. */
  char spec[64];
  snprintf(spec, sizeof spec, "ddl:%d:%s:rings=2", ranks,
           (ranks & (ranks - 1)) == 0 ? "hd" : "ring");
  const char* const specs[] = {spec, "ring:segment=64", "rhd:order=far", "ddl:rings=3"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; ++s) {
    CHECK(run_case(comm, specs[s], DDL_FLOAT32, DDL_SUM, 1027, 1) == 0);
    CHECK(run_case(comm, specs[s], DDL_INT64, DDL_MAX, 1027, 0) == 0);
  }
}

static void test_bad_arguments(ddl_comm_t comm) {
  float x[4] = {0};
  char message[256];
  EXPECT_ERROR(ddl_comm_create(MPI_COMM_WORLD, NULL), DDL_ERROR_NULL_POINTER,
               "ddl_comm_create: out is NULL");
  ddl_comm_t none = (ddl_comm_t)x; /* overwritten with NULL on failure */
  EXPECT_ERROR(ddl_comm_create(MPI_COMM_NULL, &none), DDL_ERROR_INVALID_ARGUMENT,
               "ddl_comm_create: comm is MPI_COMM_NULL");
  CHECK(none == NULL);
  EXPECT_ERROR(ddl_allreduce_inplace(NULL, x, 4, DDL_FLOAT32, DDL_SUM, "ring"),
               DDL_ERROR_NULL_POINTER, "ddl_allreduce_inplace: comm is NULL");
  EXPECT_ERROR(ddl_allreduce_inplace(comm, NULL, 4, DDL_FLOAT32, DDL_SUM, "ring"),
               DDL_ERROR_NULL_POINTER, "ddl_allreduce_inplace: buf is NULL");
  EXPECT_ERROR(ddl_allreduce_inplace(comm, x, 4, DDL_FLOAT32, DDL_SUM, NULL),
               DDL_ERROR_NULL_POINTER, "ddl_allreduce_inplace: algorithm is NULL");
  EXPECT_ERROR(ddl_allreduce(comm, NULL, x, 4, DDL_FLOAT32, DDL_SUM, "ring"),
               DDL_ERROR_NULL_POINTER, "ddl_allreduce: sendbuf is NULL");
  EXPECT_ERROR(ddl_allreduce(comm, x, NULL, 4, DDL_FLOAT32, DDL_SUM, "ring"),
               DDL_ERROR_NULL_POINTER, "ddl_allreduce: recvbuf is NULL");
  EXPECT_ERROR(ddl_allreduce(NULL, x, x, 4, DDL_FLOAT32, DDL_SUM, "ring"), DDL_ERROR_NULL_POINTER,
               "ddl_allreduce: comm is NULL");
  EXPECT_ERROR(ddl_allreduce_inplace(comm, x, 4, (ddl_dtype_t)42, DDL_SUM, "ring"),
               DDL_ERROR_BAD_DTYPE,
               "ddl_allreduce_inplace: dtype 42 is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 "
               "are 0 .. 5)");
  EXPECT_ERROR(
      ddl_allreduce(comm, x, x, 4, (ddl_dtype_t)-1, DDL_SUM, "ring"), DDL_ERROR_BAD_DTYPE,
      "ddl_allreduce: dtype -1 is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 are 0 .. 5)");
  EXPECT_ERROR(ddl_allreduce_inplace(comm, x, 4, DDL_FLOAT32, (ddl_op_t)5, "ring"),
               DDL_ERROR_BAD_OP,
               "ddl_allreduce_inplace: op 5 is not a ddl_op_t (DDL_SUM .. DDL_AVG are 0 .. 4)");
  /* The list of known names grows with the registry: the message up to it is exact. */
  const char* prefix =
      "ddl_allreduce_inplace: unknown algorithm 'rign' (allreduce algorithms: direct, ring, ddl, ";
  CHECK(ddl_allreduce_inplace(comm, x, 4, DDL_FLOAT32, DDL_SUM, "rign") ==
        DDL_ERROR_UNKNOWN_ALGORITHM);
  CHECK(strncmp(ddl_last_error_message(), prefix, strlen(prefix)) == 0);
  CHECK(strstr(ddl_last_error_message(), "auto") != NULL);
  /* A registered algorithm of another collective is no allreduce. */
  CHECK(ddl_allreduce(comm, x, x, 4, DDL_FLOAT32, DDL_SUM, "broadcast_chain") ==
        DDL_ERROR_UNKNOWN_ALGORITHM);
  CHECK(strncmp(ddl_last_error_message(), "ddl_allreduce: unknown algorithm 'broadcast_chain' ",
                50) == 0);
  /* A known name with a bad field: the parser's message after the function's name. */
  CHECK(ddl_allreduce_inplace(comm, x, 4, DDL_FLOAT32, DDL_SUM, "ring:bogus=1") ==
        DDL_ERROR_INVALID_ARGUMENT);
  CHECK(strncmp(ddl_last_error_message(),
                "ddl_allreduce_inplace: bad algorithm 'ring:bogus=1': ", 53) == 0);
  /* A grid that does not hold the ranks is refused before anything is sent. */
  CHECK(ddl_allreduce_inplace(comm, x, 4, DDL_FLOAT32, DDL_SUM, "ddl:7x3") ==
        DDL_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(ddl_last_error_message(), "7x3") != NULL);
  const size_t huge = SIZE_MAX / 8 + 1;
  snprintf(message, sizeof message,
           "ddl_allreduce_inplace: count %zu of double (8 bytes each) overflows size_t", huge);
  EXPECT_ERROR(ddl_allreduce_inplace(comm, x, huge, DDL_FLOAT64, DDL_SUM, "ring"),
               DDL_ERROR_COUNT_OVERFLOW, message);
  EXPECT_ERROR(ddl_allreduce(comm, x, x + 1, 2, DDL_FLOAT32, DDL_SUM, "ring"),
               DDL_ERROR_INVALID_ARGUMENT,
               "ddl_allreduce: sendbuf and recvbuf overlap without being the same buffer");
  EXPECT_ERROR(ddl_comm_set_timeout(comm, 0), DDL_ERROR_INVALID_ARGUMENT,
               "ddl_comm_set_timeout: timeout must be a finite number of seconds > 0, got 0");
  EXPECT_ERROR(ddl_comm_set_timeout(comm, -1.5), DDL_ERROR_INVALID_ARGUMENT,
               "ddl_comm_set_timeout: timeout must be a finite number of seconds > 0, got -1.5");
  EXPECT_ERROR(ddl_comm_set_timeout(comm, INFINITY), DDL_ERROR_INVALID_ARGUMENT,
               "ddl_comm_set_timeout: timeout must be a finite number of seconds > 0, got inf");
  EXPECT_ERROR(ddl_comm_set_timeout(NULL, 1), DDL_ERROR_NULL_POINTER,
               "ddl_comm_set_timeout: comm is NULL");
  int value = -7;
  EXPECT_ERROR(ddl_comm_rank(NULL, &value), DDL_ERROR_NULL_POINTER, "ddl_comm_rank: comm is NULL");
  EXPECT_ERROR(ddl_comm_rank(comm, NULL), DDL_ERROR_NULL_POINTER, "ddl_comm_rank: rank is NULL");
  EXPECT_ERROR(ddl_comm_size(NULL, &value), DDL_ERROR_NULL_POINTER, "ddl_comm_size: comm is NULL");
  EXPECT_ERROR(ddl_comm_size(comm, NULL), DDL_ERROR_NULL_POINTER, "ddl_comm_size: size is NULL");
  CHECK(value == -7);
  CHECK(ddl_comm_destroy(NULL) == DDL_SUCCESS);
  CHECK(ddl_dtype_size((ddl_dtype_t)6) == 0);
  CHECK(strcmp(ddl_result_string((ddl_result_t)99), "unknown ddl_result_t") == 0);
  /* After the failures the communicator still works. */
  CHECK(run_case(comm, "ring", DDL_INT32, DDL_SUM, 7, 1) == 0);
}

/* Every other collective in place, by hand (rank r's element i is 100 r + i), and groups. */
static void test_collectives_and_groups(ddl_comm_t comm) {
  enum { kPer = 3 };
  const size_t count = kPer * (size_t)ranks + 1; /* the last element is not sent */
  float* buf = malloc(count * sizeof *buf);
  const char* const alltoalls[] = {NULL, "alltoall_linear", "alltoall_bruck"};
  for (int a = 0; a < 3; ++a) {
    for (size_t i = 0; i < count; ++i) buf[i] = (float)(100 * rank + (int)i);
    CHECK(ddl_collective_inplace(comm, DDL_ALLTOALL, buf, count, DDL_FLOAT32, DDL_SUM, 0,
                                 alltoalls[a]) == DDL_SUCCESS);
    for (size_t i = 0; i + 1 < count; ++i)
      CHECK(buf[i] == (float)(100 * (int)(i / kPer) + rank * kPer + (int)(i % kPer)));
    CHECK(buf[count - 1] == (float)(100 * rank + (int)count - 1));
  }
  const int root = ranks - 1;
  for (size_t i = 0; i < count; ++i) buf[i] = (float)(100 * rank + (int)i);
  CHECK(ddl_collective_inplace(comm, DDL_REDUCE, buf, count, DDL_FLOAT32, DDL_SUM, root,
                               "reduce_binomial") == DDL_SUCCESS);
  if (rank == root)
    for (size_t i = 0; i < count; ++i)
      CHECK(buf[i] == (float)(100 * ranks * (ranks - 1) / 2 + ranks * (int)i));
  for (size_t i = 0; i < count; ++i) buf[i] = (float)(100 * rank + (int)i);
  CHECK(ddl_collective_inplace(comm, DDL_SENDRECV, buf, count, DDL_FLOAT32, DDL_SUM, 0, NULL) ==
        DDL_SUCCESS);
  CHECK(buf[1] == (float)(100 * ((rank + ranks - 1) % ranks) + 1));
  free(buf);

  /* Groups: odd and even ranks, keys reversing the order; rank 0 in no group of the second. */
  ddl_comm_t half = NULL, rest = (ddl_comm_t)&root;
  CHECK(ddl_comm_split(comm, rank % 2, -rank, &half) == DDL_SUCCESS && half != NULL);
  int hr = -1, hp = -1;
  CHECK(ddl_comm_rank(half, &hr) == DDL_SUCCESS && ddl_comm_size(half, &hp) == DDL_SUCCESS);
  CHECK(hp == (ranks + 1 - rank % 2) / 2);
  CHECK(hr == hp - 1 - rank / 2);
  int mine = rank;
  CHECK(ddl_allreduce_inplace(half, &mine, 1, DDL_INT32, DDL_SUM, "ring") == DDL_SUCCESS);
  int parity_sum = 0;
  for (int q = rank % 2; q < ranks; q += 2) parity_sum += q;
  CHECK(mine == parity_sum);
  CHECK(ddl_comm_destroy(half) == DDL_SUCCESS);
  CHECK(ddl_comm_split(comm, rank == 0 ? -1 : 0, 0, &rest) == DDL_SUCCESS);
  CHECK((rest == NULL) == (rank == 0));
  CHECK(ddl_comm_destroy(rest) == DDL_SUCCESS);

  float x[4] = {0};
  EXPECT_ERROR(ddl_comm_split(NULL, 0, 0, &rest), DDL_ERROR_NULL_POINTER,
               "ddl_comm_split: comm is NULL");
  EXPECT_ERROR(ddl_comm_split(comm, 0, 0, NULL), DDL_ERROR_NULL_POINTER,
               "ddl_comm_split: out is NULL");
  EXPECT_ERROR(
      ddl_collective_inplace(comm, (ddl_collective_t)9, x, 4, DDL_FLOAT32, DDL_SUM, 0, NULL),
      DDL_ERROR_INVALID_ARGUMENT,
      "ddl_collective_inplace: collective 9 is not a ddl_collective_t (DDL_ALLREDUCE .. "
      "DDL_SENDRECV are 0 .. 8)");
  EXPECT_ERROR(ddl_collective_inplace(comm, DDL_ALLTOALL, x, 4, DDL_FLOAT32, DDL_SUM, 0, "ring"),
               DDL_ERROR_UNKNOWN_ALGORITHM,
               "ddl_collective_inplace: unknown algorithm 'ring' (alltoall algorithms: "
               "alltoall_pairwise, alltoall_linear, alltoall_bruck, alltoall_hier, alltoall_auto)");
  char message[160];
  snprintf(message, sizeof message,
           "ddl_collective_inplace: root %d is not a rank of the communicator (0 .. %d)", ranks,
           ranks - 1);
  EXPECT_ERROR(ddl_collective_inplace(comm, DDL_GATHER, x, 4, DDL_FLOAT32, DDL_SUM, ranks, NULL),
               DDL_ERROR_INVALID_ARGUMENT, message);
}

/* All-to-all-v: rank i sends rank j (i + j) % 3 elements, value 1000 i + 10 j + k; receives
 * land in reverse rank order with one element of gap between blocks (kept as -1). */
static size_t v_count(int i, int j) {
  return (size_t)((i + j) % 3);
}
static void test_alltoallv(ddl_comm_t comm) {
  size_t* counts = malloc(4 * (size_t)ranks * sizeof *counts);
  size_t *send_counts = counts, *send_displs = counts + ranks, *recv_counts = counts + 2 * ranks,
         *recv_displs = counts + 3 * ranks;
  size_t in_elements = 0, out_elements = 0;
  for (int j = 0; j < ranks; ++j) {
    send_counts[j] = v_count(rank, j);
    send_displs[j] = in_elements;
    in_elements += send_counts[j];
  }
  for (int i = ranks - 1; i >= 0; --i) {
    recv_counts[i] = v_count(i, rank);
    recv_displs[i] = out_elements;
    out_elements += recv_counts[i] + 1;
  }
  int32_t* in = malloc((in_elements + 1) * sizeof *in);
  int32_t* out = malloc(out_elements * sizeof *out);
  const char* const algos[] = {NULL, "alltoallv_linear"};
  for (int a = 0; a < 2; ++a) {
    for (int j = 0; j < ranks; ++j)
      for (size_t k = 0; k < send_counts[j]; ++k)
        in[send_displs[j] + k] = 1000 * rank + 10 * j + (int)k;
    for (size_t e = 0; e < out_elements; ++e) out[e] = -1;
    CHECK(ddl_alltoallv(comm, in, send_counts, send_displs, out, recv_counts, recv_displs,
                        DDL_INT32, algos[a]) == DDL_SUCCESS);
    for (int i = 0; i < ranks; ++i) {
      for (size_t k = 0; k < recv_counts[i]; ++k)
        CHECK(out[recv_displs[i] + k] == 1000 * i + 10 * rank + (int)k);
      CHECK(out[recv_displs[i] + recv_counts[i]] == -1);
    }
  }
  /* Refused on every rank alike (every rank makes the same mistake, so none waits). */
  EXPECT_ERROR(
      ddl_alltoallv(comm, in, NULL, send_displs, out, recv_counts, recv_displs, DDL_INT32, NULL),
      DDL_ERROR_NULL_POINTER, "ddl_alltoallv: send_counts is NULL");
  EXPECT_ERROR(ddl_alltoallv(comm, in, send_counts, send_displs, out, recv_counts, recv_displs,
                             DDL_INT32, "alltoallv_bruck"),
               DDL_ERROR_UNKNOWN_ALGORITHM,
               "ddl_alltoallv: unknown all-to-all-v algorithm 'alltoallv_bruck' (known: "
               "alltoallv_pairwise, alltoallv_linear, alltoallv_hier)");
  EXPECT_ERROR(ddl_alltoallv(comm, in, send_counts, send_displs, out, recv_counts, recv_displs,
                             (ddl_dtype_t)6, NULL),
               DDL_ERROR_BAD_DTYPE,
               "ddl_alltoallv: dtype 6 is not a ddl_dtype_t (DDL_FLOAT32 .. DDL_INT64 are 0 .. 5)");
  /* Every rank keeps 2 elements for itself and receives them on top of another block's. */
  for (int j = 0; j < ranks; ++j) send_counts[j] = recv_counts[j] = 2, recv_displs[j] = 1;
  recv_displs[0] = 0;
  char message[200];
  if (ranks > 1) {
    snprintf(message, sizeof message,
             "ddl_alltoallv: alltoallv: the output ranges for rank 0 (elements 0 to 2) and rank 1 "
             "(elements 1 to 3) overlap");
    EXPECT_ERROR(ddl_alltoallv(comm, in, send_counts, send_displs, out, recv_counts, recv_displs,
                               DDL_INT32, NULL),
                 DDL_ERROR_INVALID_ARGUMENT, message);
  }
  for (int j = 0; j < ranks; ++j) send_counts[j] = recv_counts[j] = 0;
  send_counts[rank] = recv_counts[rank] = 1;
  send_displs[rank] = recv_displs[rank] = 0;
  EXPECT_ERROR(ddl_alltoallv(comm, in, send_counts, send_displs, in + 0, recv_counts, recv_displs,
                             DDL_INT32, NULL),
               DDL_ERROR_INVALID_ARGUMENT,
               "ddl_alltoallv: sendbuf and recvbuf overlap (all-to-all-v reads one buffer and "
               "writes another)");
  free(in);
  free(out);
  free(counts);
}

static void* message_of_new_thread(void* out) {
  *(const char**)out = ddl_last_error_message();
  return NULL;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CHECK(strcmp(ddl_last_error_message(), "") == 0); /* nothing failed yet */
  ddl_comm_t comm = NULL;
  const ddl_result_t created = ddl_comm_create(MPI_COMM_WORLD, &comm);
  if (created != DDL_SUCCESS) {
    fprintf(stderr, "rank %d: ddl_comm_create: %s\n", rank, ddl_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int r = -1, p = -1;
  CHECK(ddl_comm_rank(comm, &r) == DDL_SUCCESS && r == rank);
  CHECK(ddl_comm_size(comm, &p) == DDL_SUCCESS && p == ranks);
  CHECK(ddl_comm_set_timeout(comm, 60) == DDL_SUCCESS);

  if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
    /* Rank 1 never joins; rank 0's allreduce ends after 1 s with what it waited for. */
    if (rank == 0) {
      float x[64] = {0};
      CHECK(ddl_comm_set_timeout(comm, 1) == DDL_SUCCESS);
      CHECK(ddl_allreduce_inplace(comm, x, 64, DDL_FLOAT32, DDL_SUM, "ring") == DDL_ERROR_TIMEOUT);
      const char* prefix = "ddl_allreduce_inplace: rank 0: timed out after 1 s waiting for ";
      CHECK(strncmp(ddl_last_error_message(), prefix, strlen(prefix)) == 0);
      fprintf(stderr, "rank 0: %s\n", ddl_last_error_message());
    }
    /* Rank 1 waits here, outside ddl, until rank 0 has timed out. */
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    test_results(comm);
    test_bad_arguments(comm);
    test_collectives_and_groups(comm);
    test_alltoallv(comm);
    /* The message is per thread: a new thread sees none. */
    const char* other = NULL;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, message_of_new_thread, &other) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK(other != NULL && strcmp(other, "") == 0);
    CHECK(strcmp(ddl_last_error_message(), "") != 0);
  }
  CHECK(ddl_comm_destroy(comm) == DDL_SUCCESS);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("test_capi: %d ranks, %d failed checks\n", ranks, total);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
