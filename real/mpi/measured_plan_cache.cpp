#include "real/mpi/measured_plan_cache.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/measured_choice.hpp"
#include "planner/plan_file.hpp"
#include "real/mpi/bounded_mpi.hpp"
#include "real/mpi/mpi_error.hpp"

namespace ddl {

namespace {

// The cache's folder; empty where the environment names none.
std::string cache_dir() {
  if (const char* d = std::getenv("DDL_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ddl";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ddl";
  return "";
}

// Every rank's host name, in rank order, runs of one host shortened: "a x2, b x2".
std::string hosts(MpiCommunicator& comm) {
  constexpr int kName = 256;
  std::vector<char> mine(kName, '\0');
  int length = 0;
  check_mpi(MPI_Get_processor_name(mine.data(), &length), "MPI_Get_processor_name");
  std::vector<char> all(static_cast<std::size_t>(kName * comm.size()));
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(
      MPI_Iallgather(mine.data(), kName, MPI_CHAR, all.data(), kName, MPI_CHAR, comm.comm(), &req),
      "MPI_Iallgather (host names)");
  wait_bounded(req, comm.comm(), comm.timeout(), "the exchange of host names for auto's plan");
  std::string out;
  for (int r = 0; r < comm.size();) {
    const std::string name(&all[static_cast<std::size_t>(r * kName)]);
    int run = 1;
    while (r + run < comm.size() &&
           name == std::string(&all[static_cast<std::size_t>((r + run) * kName)]))
      ++run;
    out += (out.empty() ? "" : ", ") + name + (run > 1 ? " x" + std::to_string(run) : "");
    r += run;
  }
  return out;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  check_mpi(MPI_Get_library_version(text, &length), "MPI_Get_library_version");
  std::string v(text, static_cast<std::size_t>(length));
  return v.substr(0, v.find_first_of(",\n"));
}

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::string serialize(const Plan& plan) {
  std::ostringstream out;
  for (const PlanEntry& e : plan.entries)
    out << e.min_bytes << ' ' << e.max_bytes << ' ' << e.algorithm << '\n';
  return out.str();
}

Plan deserialize(int ranks, const std::string& text) {
  Plan plan;
  plan.ranks = ranks;
  std::istringstream in(text);
  PlanEntry e;
  while (in >> e.min_bytes >> e.max_bytes >> e.algorithm) plan.entries.push_back(e);
  plan.validate();
  return plan;
}

// Rank 0's `text` (length first) to every rank, bounded.
void broadcast(MpiCommunicator& comm, std::string& text) {
  unsigned long long length = text.size();
  MPI_Request req = MPI_REQUEST_NULL;
  check_mpi(MPI_Ibcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm.comm(), &req),
            "MPI_Ibcast (auto's plan)");
  wait_bounded(req, comm.comm(), comm.timeout(), "the broadcast of auto's plan");
  text.resize(length);
  if (length == 0) return;
  check_mpi(MPI_Ibcast(text.data(), static_cast<int>(length), MPI_CHAR, 0, comm.comm(), &req),
            "MPI_Ibcast (auto's plan)");
  wait_bounded(req, comm.comm(), comm.timeout(), "the broadcast of auto's plan");
}

std::string sizes_text(const std::vector<std::size_t>& sizes) {
  std::string out;
  for (std::size_t b : sizes) out += (out.empty() ? "" : ",") + std::to_string(b);
  return out;
}

}  // namespace

MeasuredPlan measured_plan_for(MpiCommunicator& comm, const Dims& grid) {
  ProbeSpec spec;
  spec.grid = grid;
  spec.candidates = probe_candidates(comm, grid);
  spec.sizes = probe_sizes();
  std::string candidates;
  for (const std::string& c : spec.candidates) candidates += (candidates.empty() ? "" : ",") + c;
  const std::string key = "ddl measured auto v2; " + library_version() + "; hosts " + hosts(comm) +
                          "; grid " + grid.to_string() + "; candidates " + candidates + "; sizes " +
                          sizes_text(spec.sizes) + "; " + std::to_string(spec.repetitions) + " x " +
                          std::to_string(spec.batch) + " float32 sums, library margin " +
                          std::to_string(spec.library_margin);
  const std::string dir = cache_dir();
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  const std::string path = dir.empty() ? ""
                                       : dir + "/auto-" + std::to_string(comm.size()) + "ranks-" +
                                             grid.to_string() + "-" + hash + ".json";
  // Rank 0 looks; its verdict (the plan's entries, or nothing) goes to every rank.
  std::string cached, why_not;
  if (comm.rank() == 0 && !path.empty() && std::filesystem::exists(path)) {
    try {
      const PlanFile file = read_plan_file(path);
      if (file.platform == key && file.plan.ranks == comm.size())
        cached = serialize(file.plan);
      else
        why_not = ", replacing one measured for another machine or job shape";
    } catch (const Error& e) {
      why_not = ", replacing an unreadable one: " + std::string(e.what());
    }
  }
  broadcast(comm, cached);
  if (!cached.empty())
    return {std::make_shared<const Plan>(deserialize(comm.size(), cached)),
            "read from " + path + ", measured before on these hosts: delete it to measure again"};

  const auto start = std::chrono::steady_clock::now();
  const MeasuredChoice choice = measure_choice(comm, spec);
  char took[32];
  std::snprintf(took, sizeof took, "%.1f",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  std::string basis = "measured here in " + std::string(took) + " s";
  if (comm.rank() == 0) {
    if (path.empty()) {
      basis += ", not cached: no DDL_CACHE_DIR, XDG_CACHE_HOME or HOME";
    } else {
      PlanFile file;
      file.platform = key;
      file.dims = grid.to_string();
      file.plan = choice.plan;
      for (const MeasuredSize& m : choice.sizes) {
        PlanEvidence e;
        e.bytes = m.bytes;
        e.algorithm = m.chosen;
        e.candidates = choice.candidates.size();
        for (std::size_t c = 0; c < choice.candidates.size(); ++c)
          e.measured_us.emplace_back(choice.candidates[c], m.seconds[c] * 1e6);
        file.evidence.push_back(e);
      }
      try {
        std::filesystem::create_directories(dir);
        write_plan_file(path, file);
        basis += ", cached in " + path + why_not;
      } catch (const std::exception& e) {
        basis += ", not cached: " + std::string(e.what());
      }
    }
  }
  return {std::make_shared<const Plan>(choice.plan), basis};
}

}  // namespace ddl
