/* Average a buffer of doubles over MPI ranks with ddl's C API, out of place, and check every
 * element on every rank; errors are reported with their code and message.
 *   mpirun -np 4 c_allreduce [algorithm]
 * algorithm: auto by default; direct, ring, ddl, rhd, rd, dbtree or hier */
#include <ddl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 100000

static void check(ddl_result_t rc) {
  if (rc != DDL_SUCCESS) {
    fprintf(stderr, "c_allreduce: %s: %s\n", ddl_result_string(rc), ddl_last_error_message());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* algorithm = argc > 1 ? argv[1] : "auto";
  ddl_comm_t comm = NULL;
  check(ddl_comm_create(MPI_COMM_WORLD, &comm));
  check(ddl_comm_set_timeout(comm, 60));
  int rank = 0, ranks = 1;
  check(ddl_comm_rank(comm, &rank));
  check(ddl_comm_size(comm, &ranks));

  /* Rank r sends 2 r + i % 4: the mean is ranks - 1 + i % 4, exact in double. */
  double* send = malloc(COUNT * sizeof *send);
  double* mean = malloc(COUNT * sizeof *mean);
  for (size_t i = 0; i < COUNT; ++i) send[i] = 2.0 * rank + (double)(i % 4);
  check(ddl_allreduce(comm, send, mean, COUNT, DDL_FLOAT64, DDL_AVG, algorithm));

  long wrong = 0, total = 0;
  for (size_t i = 0; i < COUNT; ++i) wrong += mean[i] != ranks - 1 + (double)(i % 4);
  MPI_Allreduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total == 0)
      printf(
          "c_allreduce: %d ranks, %s allreduce (avg) of %d doubles: every element exact on "
          "every rank\n",
          ranks, algorithm, COUNT);
    else
      printf("c_allreduce: %d ranks, %s: %ld wrong elements\n", ranks, algorithm, total);
  }
  free(send);
  free(mean);
  check(ddl_comm_destroy(comm));
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
