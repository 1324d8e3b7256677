// Groups over MPI (MpiCommunicator::split, MPI_Comm_split): halves and strided groups of the
// world, every allreduce algorithm exact inside each, on counts 1, p+1 and odd; a negative
// color gets no communicator. Run under mpirun on 4 ranks (real/mpi/CMakeLists.txt).
#include <mpi.h>

#include <catch2/catch.hpp>
#include <memory>
#include <vector>

#include "algorithms/check_pattern.hpp"
#include "algorithms/nonblocking.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/thread_streams.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

namespace {

// Every allreduce but the in-switch ones (MPI has no switch that reduces), in `group`.
void every_allreduce_exact(Communicator& group) {
  const int p = group.size();
  for (const Algorithm& a : algorithms()) {
    if (a.collective != Collective::allreduce || a.needs_in_switch) continue;
    for (std::size_t count : {std::size_t{1}, std::size_t(p + 1), std::size_t{1001}}) {
      std::vector<float> buf(count);
      fill_input(buf.data(), count, DType::float32, ReduceOp::sum, a.collective, group.rank(), p,
                 0);
      a.run(group, {buf.data(), count * sizeof(float)}, DType::float32, ReduceOp::sum, Options{});
      INFO(a.name << " in a group of " << p << " count " << count << " rank " << group.rank());
      CHECK(check_output(buf.data(), count, DType::float32, ReduceOp::sum, a.collective,
                         group.rank(), p, 0)
                .wrong == 0);
    }
  }
}

}  // namespace

TEST_CASE("split into halves: every allreduce exact in each half", "[mpi][groups]") {
  MpiCommunicator world(MPI_COMM_WORLD, 30);
  const int p = world.size(), r = world.rank();
  const std::unique_ptr<Communicator> half = world.split(r < p / 2 ? 0 : 1, r);
  REQUIRE(half);
  CHECK(half->size() == (r < p / 2 ? p / 2 : p - p / 2));
  CHECK(half->rank() == (r < p / 2 ? r : r - p / 2));
  every_allreduce_exact(*half);
}

TEST_CASE("split into strided groups, reversed by key: every allreduce exact", "[mpi][groups]") {
  MpiCommunicator world(MPI_COMM_WORLD, 30);
  const int p = world.size(), r = world.rank();
  const std::unique_ptr<Communicator> strided = world.split(r % 2, -r);
  REQUIRE(strided);
  const int members = (p - r % 2 + 1) / 2;  // ranks of r's parity
  CHECK(strided->size() == members);
  CHECK(strided->rank() == members - 1 - r / 2);
  every_allreduce_exact(*strided);
  // A group of the group: each rank alone.
  const std::unique_ptr<Communicator> alone = strided->split(strided->rank(), 0);
  REQUIRE(alone);
  CHECK(alone->size() == 1);
}

TEST_CASE("split with a negative color gets no communicator", "[mpi][groups]") {
  MpiCommunicator world(MPI_COMM_WORLD, 30);
  const std::unique_ptr<Communicator> group = world.split(world.rank() == 0 ? -1 : 0, 0);
  CHECK((group == nullptr) == (world.rank() == 0));
  if (group) CHECK(group->size() == world.size() - 1);
}

TEST_CASE("non-blocking: halves and strided groups in flight at once, exact", "[mpi][groups]") {
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {  // the same on every rank: they all leave here
    WARN("this MPI provides no MPI_THREAD_MULTIPLE: non-blocking collectives not tested");
    return;
  }
  MpiCommunicator world(MPI_COMM_WORLD, 30);
  const int r = world.rank();
  const std::unique_ptr<Communicator> half = world.split(r / 2, r);
  const std::unique_ptr<Communicator> strided = world.split(r % 2, r);
  ThreadLauncher threads;
  NonBlocking nb(threads);
  const std::size_t count = 1001;
  std::vector<float> a(count), b(count);
  fill_input(a.data(), count, DType::float32, ReduceOp::sum, Collective::allreduce, half->rank(),
             half->size(), 0);
  fill_input(b.data(), count, DType::float32, ReduceOp::sum, Collective::alltoall, strided->rank(),
             strided->size(), 0);
  CollectiveHandle ha = nb.start(*half, find_algorithm("ring"), {a.data(), count * sizeof(float)},
                                 DType::float32, ReduceOp::sum, Options{});
  CollectiveHandle hb =
      nb.start(*strided, find_algorithm("alltoall_pairwise"), {b.data(), count * sizeof(float)},
               DType::float32, ReduceOp::sum, Options{});
  ha.wait();
  hb.wait();
  CHECK(check_output(a.data(), count, DType::float32, ReduceOp::sum, Collective::allreduce,
                     half->rank(), half->size(), 0)
            .wrong == 0);
  CHECK(check_output(b.data(), count, DType::float32, ReduceOp::sum, Collective::alltoall,
                     strided->rank(), strided->size(), 0)
            .wrong == 0);
}
