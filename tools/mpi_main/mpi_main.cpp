#include "tools/mpi_main/mpi_main.hpp"

#include <mpi.h>

#include <string>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"
#include "real/mpi/startup_bound.hpp"

namespace ddl {

namespace {

// How long rank 0 waits for the other ranks to answer after a timeout (unresponsive_ranks).
constexpr double kAnswerGrace = 2.0;

}  // namespace

int mpi_main(int argc, char** argv, const MpiMainSettings& settings,
             const std::function<int(MpiMainBounds&)>& run) {
  {
    const StartupBound bound(settings.tool,
                             startup_timeout(argc, argv, settings.default_timeout_s));
    if (settings.init)
      settings.init(argc, argv);
    else
      MPI_Init(&argc, &argv);
  }
  MpiMainBounds bounds;
  int rc = 0;
  try {
    rc = run(bounds);
    finish_stdout();  // rank 0's report cut short by a full disk must not end in status 0
  } catch (const Timeout& e) {
    // A wait ran out, perhaps on a rank that itself waits on a stopped one: ask which ranks are
    // still there, so the message names the one that is not (the wait itself knows only whom it
    // waited for).
    abort_world(settings.tool,
                std::string(e.what()) + "; " +
                    unresponsive_ranks(MPI_COMM_WORLD, kAnswerGrace, bounds.rank0_late_s),
                1);
  } catch (const std::exception& e) {
    abort_world(settings.tool, e.what(), 1);
  }
  {
    const WatchdogGuard guard(bounds.finalize_s, "MPI_Finalize");
    MPI_Finalize();
  }
  return rc;
}

}  // namespace ddl
