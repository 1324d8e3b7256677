// ddlsim --workload --sweep runs each size in a child process with the flags as ddlsim parsed
// them, and its rows come back exact: every size's row is the row that size's own run prints
// with the same flags, to the last digit, whatever the flags (--exact among them).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "child_process.hpp"

using namespace ddl::test;
namespace fs = std::filesystem;

namespace {

// The rows of a --format json run.
nlohmann::json json_rows(const std::string& command) {
  const ChildResult r = run_child(command);
  INFO(command << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out).at("rows");
}

}  // namespace

TEST_CASE("workload sweep: each size's row is its own run's with the same flags, exact",
          "[sim][scale][workload]") {
  const fs::path dir =
      fs::temp_directory_path() / ("ddl_workload_sweep_rows_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Two sizes: 2 GPUs, and 256, where --exact (every step played, none extrapolated) changes
  // the iteration's time in its last digits.
  fs::copy_file(platform("two_hosts.xml"), dir / "fam_2.xml");
  fs::copy_file(platform("s822lc_64.xml"), dir / "fam_256.xml");
  const fs::path workload = dir / "three.csv";
  std::ofstream(workload) << "# model = three\n# reference_batch = 1\n"
                             "# reference_iteration_ms = 3\n# backward_to_forward = 2\n"
                             "# reference_gpu = test host\n# reference_gpu_fp32_tflops = 1\n"
                             "# reference_gpu_memory_gbs = 100\n"
                             "layer,kind,params,forward_macs\n"
                             "l0,conv,250000,1\nl1,conv,250000,1\nl2,fc,2500000,2\n";
  const std::string flags =
      " --format json --workload " + workload.string() + " --algo ring,ddl --exact --platform ";
  const nlohmann::json swept =
      json_rows(ddlsim() + flags + (dir / "fam_256.xml").string() + " --sweep");
  REQUIRE(swept.size() == 4);
  for (const auto& [file, first] :
       std::vector<std::pair<std::string, std::size_t>>{{"fam_2.xml", 0}, {"fam_256.xml", 2}}) {
    const nlohmann::json own = json_rows(ddlsim() + flags + (dir / file).string());
    REQUIRE(own.size() == 2);
    INFO(file);
    CHECK(swept[first] == own[0]);
    CHECK(swept[first + 1] == own[1]);
  }
  fs::remove_all(dir);
}
