#include "tools/sim_ranks/sim_main.hpp"

#include <iostream>
#include <optional>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"

namespace ddl::sim {

int sim_main(int argc, char** argv, const char* tool, const std::function<int(SweepRanks&)>& run) {
  std::optional<SweepRanks> ranks;  // several under mpirun
  try {
    ranks.emplace(argc, argv);
    const int rc = run(*ranks);
    finish_stdout();  // help, or a report cut short by a full disk, must not end in status 0
    return rc;
  } catch (const Timeout& e) {
    std::cerr << tool << ": " << e.what() << "\n";
    ranks->abort(1);
  } catch (const std::exception& e) {
    if (!ranks || ranks->root()) std::cerr << tool << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace ddl::sim
