/* One MPI_Allreduce of a float buffer under SimGrid's SMPI, timing-only: the buffers come from
 * SMPI_SHARED_MALLOC (every rank maps the same few pages), so no payload is moved or kept and
 * memory does not grow with the rank count. The collective's algorithm is SMPI's
 * --cfg=smpi/allreduce:<name>; experiments/bench_sim.sh runs it beside ddlsim on the same
 * platform file.
 *
 *   smpi_allreduce BYTES
 *
 * Prints, on rank 0, "simulated_us <t>": from the first rank leaving a barrier to the last
 * rank leaving the allreduce, in simulated microseconds (ddlsim's timing, sim/README.md). */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* end = NULL;
  errno = 0;
  const long long bytes = argc == 2 ? strtoll(argv[1], &end, 10) : -1;
  if (argc != 2 || errno != 0 || *end != '\0' || bytes <= 0 || bytes % (long long)sizeof(float)) {
    if (rank == 0)
      fprintf(stderr,
              "smpi_allreduce: give one size in bytes, a positive multiple of %zu, got '%s'\n",
              sizeof(float), argc == 2 ? argv[1] : "");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int count = (int)(bytes / (long long)sizeof(float));
  float* send = SMPI_SHARED_MALLOC((size_t)bytes);
  float* recv = SMPI_SHARED_MALLOC((size_t)bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  MPI_Allreduce(send, recv, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  const double stop = MPI_Wtime();
  double first = 0, last = 0;
  MPI_Reduce(&start, &first, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&stop, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("simulated_us %.6f\n", (last - first) * 1e6);
  SMPI_SHARED_FREE(send);
  SMPI_SHARED_FREE(recv);
  MPI_Finalize();
  return 0;
}
