// start_engine (sim/platform.hpp): the process's Engine, the project's network model, --cfg.
#include <signal.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <simgrid/s4u.hpp>
#include <vector>

#include "algorithms/error.hpp"
#include "sim/platform.hpp"

namespace ddl::sim {

namespace {

// Options whose bad values SimGrid 3.32 does not refuse with an exception but aborts on, at
// load time (checked against the installed library), with the values it offers.
// network/model:Constant refuses every link (and every platform here has links) and ns-3 is not in
// Debian's build: both abort, so they are left out.
const std::map<std::string, std::vector<std::string>>& enumerated_options() {
  static const std::map<std::string, std::vector<std::string>> options = {
      {"network/model", {"CM02", "LV08", "SMPI", "IB"}},
      {"cpu/model", {"Cas01"}},
      {"host/model", {"default", "compound", "ptask_L07"}},
      {"disk/model", {"default"}},
      {"network/optim", {"Lazy", "TI", "Full"}},
      {"cpu/optim", {"Lazy", "TI", "Full"}},
      {"network/solver", {"maxmin", "fairbottleneck", "bmf"}},
      {"cpu/solver", {"maxmin", "fairbottleneck", "bmf"}},
      {"host/solver", {"maxmin", "fairbottleneck", "bmf"}},
  };
  return options;
}

// SimGrid reads a numeric option with strtod, which takes "nan", "inf" and hexadecimal: a
// --cfg network/latency-factor:nan would be accepted and make every time NaN. Every number in the
// value (options such as network/latency-factor take "SIZE:FACTOR;..." lists) must be a finite
// decimal one.
void check_numbers(const std::string& item, const std::string& value) {
  std::size_t start = 0;
  while (start <= value.size()) {
    const std::size_t end = std::min(value.find_first_of(";:, ", start), value.size());
    const std::string token = value.substr(start, end - start);
    start = end + 1;
    char* stop = nullptr;
    const double number = std::strtod(token.c_str(), &stop);
    if (token.empty() || stop != token.c_str() + token.size()) continue;  // not a number: a name
    const bool hex = token.find_first_of("xX") != std::string::npos;
    if (!std::isfinite(number) || hex)
      throw InvalidArgument("bad --cfg '" + item + "': '" + token + "' is not a finite decimal " +
                            "number");
  }
}

void apply_config(const std::string& item) {
  const std::size_t colon = item.find(':');
  if (colon == std::string::npos || colon == 0)
    throw InvalidArgument("bad --cfg '" + item + "': give name:value, e.g. network/model:LV08");
  const std::string name = item.substr(0, colon), value = item.substr(colon + 1);
  // SimGrid picks its context factory when the Engine is created, before any --cfg: setting it
  // later would be taken and do nothing.
  if (name == "contexts/factory")
    throw InvalidArgument("bad --cfg '" + item +
                          "': SimGrid chooses its context factory when it starts, before ddlsim "
                          "can pass options on");
  check_numbers(item, value);
  const auto& options = enumerated_options();
  if (const auto known = options.find(name); known != options.end()) {
    const std::vector<std::string>& values = known->second;
    if (std::find(values.begin(), values.end(), value) == values.end()) {
      std::string list;
      for (const std::string& v : values) list += (list.empty() ? "" : ", ") + v;
      throw InvalidArgument("bad --cfg '" + item + "': " + name + " takes " + list);
    }
  }
  try {
    simgrid::s4u::Engine::set_config(item);
  } catch (const std::exception& e) {
    // SimGrid follows an unknown name with every option it has: its first line says enough.
    std::string why = e.what();
    why = why.substr(0, why.find('\n'));
    throw InvalidArgument("bad --cfg '" + item + "': " + why +
                          " (simgrid options: see sim/README.md)");
  }
}

}  // namespace

simgrid::s4u::Engine& start_engine(const char* program, const std::vector<std::string>& cfg) {
  // SimGrid reads its own flags from argv; ours are parsed separately, so it only sees these.
  static std::string name = program;
  // No "Configuration change" lines, and no notice for reductions shorter than SimGrid's 1 ns
  // timing precision (a few bytes on a GPU): they still take their (negligible) time.
  static std::string quiet_cfg = "--log=xbt_cfg.thresh:warning";
  static std::string quiet_actor = "--log=s4u_actor.thresh:warning";
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer cannot follow SimGrid's own stack switching: an exception thrown in an
  // actor is reported as a stack-buffer-overflow inside sigaltstack (a false positive). Actors
  // as threads run on stacks it knows; sanitizer builds only, for their tests.
  static std::string factory = "--cfg=contexts/factory:thread";
  static char* argv[] = {name.data(), quiet_cfg.data(), quiet_actor.data(), factory.data(),
                         nullptr};
  static int argc = 4;
#else
  static char* argv[] = {name.data(), quiet_cfg.data(), quiet_actor.data(), nullptr};
  static int argc = 3;
#endif
  // SimGrid sets its own SIGINT handler, which prints every actor's state and calls exit() from
  // the handler: exit's destructors then run under a simulation in progress and may abort
  // (status 134), before the cleanup of temporary files runs (harness/temp_cleanup.hpp). Ctrl-C
  // keeps the action it had before the engine existed: the default, or the program's own.
  struct sigaction sigint_before {};
  ::sigaction(SIGINT, nullptr, &sigint_before);
  static simgrid::s4u::Engine engine(&argc, argv);
  ::sigaction(SIGINT, &sigint_before, nullptr);
  simgrid::s4u::Engine::set_config("network/model:CM02");
  // In 3.32 a TCP-gamma of 0 stalls every flow instead of disabling the window: use a huge one.
  simgrid::s4u::Engine::set_config("network/TCP-gamma:1e18");
  simgrid::s4u::Engine::set_config("network/crosstraffic:0");
  for (const std::string& item : cfg) apply_config(item);
  return engine;
}

}  // namespace ddl::sim
