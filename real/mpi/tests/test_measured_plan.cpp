// The MPI backend's library (NativeLibrary): `native` runs MPI_Allreduce, and auto's measured
// plan is made once, kept by the communicator, cached per machine in a plan file, read back by
// the next communicator, and measured anew when the file is unreadable.
#include <mpi.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/measured_choice.hpp"
#include "algorithms/registry.hpp"
#include "real/mpi/mpi_communicator.hpp"

using namespace ddl;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

// The same plan on every rank: its entries' sum of bounds and names' lengths agree.
void require_same_everywhere(const Plan& plan) {
  long long mine = 0;
  for (const PlanEntry& e : plan.entries)
    mine += static_cast<long long>(e.min_bytes + e.max_bytes + e.algorithm.size());
  long long low = mine, high = mine;
  MPI_Allreduce(MPI_IN_PLACE, &low, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &high, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  REQUIRE(low == high);
}

}  // namespace

TEST_CASE("native runs MPI_Allreduce, exact, and refuses types MPI lacks", "[mpi][native]") {
  MpiCommunicator comm(MPI_COMM_WORLD, 30);
  const int p = comm.size(), r = comm.rank();
  std::vector<std::int64_t> data(1001);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = r * 1000 + static_cast<int>(i);
  find_algorithm("native").run(comm, {data.data(), data.size() * 8}, DType::int64, ReduceOp::max,
                               {});
  for (std::size_t i = 0; i < data.size(); ++i)
    CHECK(data[i] == (p - 1) * 1000 + static_cast<std::int64_t>(i));
  std::vector<std::uint16_t> half(8);
  CHECK_THROWS_WITH(
      find_algorithm("native").run(comm, {half.data(), 16}, DType::float16, ReduceOp::sum, {}),
      Catch::Contains("native: MPI_Allreduce has no half reduction"));
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_CASE("auto's measured plan: measured once, cached, read back, re-measured when unreadable",
          "[mpi][native]") {
  const int p = [] {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return size;
  }();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // A folder of this test's own (the ranks of one job share the working directory).
  const std::string dir = std::filesystem::absolute("measured_plan_" + std::to_string(p) + "ranks");
  if (rank == 0) std::filesystem::remove_all(dir);
  MPI_Barrier(MPI_COMM_WORLD);
  const char* before = std::getenv("DDL_CACHE_DIR");
  const std::string restore = before ? before : "";
  ::setenv("DDL_CACHE_DIR", dir.c_str(), 1);
  const Dims grid = Dims::flat(p);

  std::string basis;
  std::shared_ptr<const Plan> first;
  {
    MpiCommunicator comm(MPI_COMM_WORLD, 60);
    first = comm.measured_plan(grid, &basis);
    REQUIRE(first != nullptr);
    if (rank == 0) {
      CHECK(starts_with(basis, "measured here in "));
      CHECK(basis.find("cached in " + dir + "/auto-" + std::to_string(p) + "ranks-") !=
            std::string::npos);
    }
    CHECK(first->ranks == p);
    CHECK_NOTHROW(first->validate());
    const std::vector<std::string> candidates = probe_candidates(comm, grid);
    CHECK(std::find(candidates.begin(), candidates.end(), "native") != candidates.end());
    for (const PlanEntry& e : first->entries)
      CHECK(std::find(candidates.begin(), candidates.end(), e.algorithm) != candidates.end());
    require_same_everywhere(*first);
    // Kept: the second question is answered without measuring.
    CHECK(comm.measured_plan(grid, nullptr) == first);
  }
  std::vector<std::filesystem::path> files;
  if (rank == 0)
    for (const auto& f : std::filesystem::directory_iterator(dir)) files.push_back(f.path());
  if (rank == 0) REQUIRE(files.size() == 1);
  {
    MpiCommunicator comm(MPI_COMM_WORLD, 60);
    const std::shared_ptr<const Plan> again = comm.measured_plan(grid, &basis);
    CHECK(starts_with(basis, "read from " + dir + "/auto-"));
    CHECK(again->entries == first->entries);
  }
  if (rank == 0) std::ofstream(files[0]) << "{ not json";
  MPI_Barrier(MPI_COMM_WORLD);
  {
    MpiCommunicator comm(MPI_COMM_WORLD, 60);
    const std::shared_ptr<const Plan> remade = comm.measured_plan(grid, &basis);
    if (rank == 0) CHECK(basis.find("replacing an unreadable one") != std::string::npos);
    CHECK_NOTHROW(remade->validate());
    require_same_everywhere(*remade);
  }
  if (restore.empty())
    ::unsetenv("DDL_CACHE_DIR");
  else
    ::setenv("DDL_CACHE_DIR", restore.c_str(), 1);
  MPI_Barrier(MPI_COMM_WORLD);
}
