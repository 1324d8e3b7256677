// The shared command-line path (harness/arguments.hpp + cli.hpp + workload_cli.hpp) with the
// algorithm strings behind --algo and --methods: the input is one argument per line, parsed as
// ddlsim and ddlrun parse theirs. Only ddl::Error may come out; accepted options must be sane.
#include <sstream>
#include <vector>

#include "fuzz/fuzz_common.hpp"
#include "harness/arguments.hpp"
#include "harness/cli.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"ddlfuzz"};
  std::istringstream lines(fuzz::text(data, size));
  for (std::string line; std::getline(lines, line) && args.size() < 64;) args.push_back(line);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  DDL_FUZZ_ACCEPT_ERRORS({
    boost::program_options::options_description desc;
    harness::add_common_options(desc, {});
    const auto vm =
        harness::parse_arguments(static_cast<int>(argv.size()), argv.data(), desc, "ddlfuzz");
    const harness::CommonOptions o = harness::read_common_options(vm);
    fuzz::require(!o.sizes.empty() && !o.algos.empty(), "a sweep has sizes and algorithms");
    fuzz::require(o.iters >= 1 && o.warmup >= 0 && o.rings >= 1, "counts in range");
    fuzz::require(o.sizes.front() % dtype_size(o.dtype) == 0, "sizes are whole elements");
  });
  // The same text as one algorithm string and one methods string.
  const std::string spec = fuzz::text(data, size);
  DDL_FUZZ_ACCEPT_ERRORS(
      fuzz::require(!harness::resolve_algorithms(spec).empty(), "names resolved"));
  DDL_FUZZ_ACCEPT_ERRORS(fuzz::require(!harness::parse_methods(spec).empty(), "methods parsed"));
  return 0;
}
