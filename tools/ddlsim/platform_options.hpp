// ddlsim's flags about the machine beyond --platform: --hostfile, --memory-bandwidth, --cfg,
// --exact (how it is simulated);
// and --platform given as a JSON machine description (platforms/README.md), which is turned
// into a SimGrid file by the project's generator (platforms/generate.py) first.
#pragma once

#include <boost/program_options.hpp>
#include <string>
#include <vector>

#include "sim/platform_ranks.hpp"

namespace ddl::sim {

void add_platform_options(boost::program_options::options_description& desc);

struct PlatformFlags {
  PlatformChoice choice;
  std::vector<std::string> cfg;  // --cfg items, in order
};
// InvalidArgument for a bad --memory-bandwidth (--cfg items are checked by start_engine).
PlatformFlags read_platform_flags(const boost::program_options::variables_map& vm);

// The SimGrid file to load for --platform `platform`: the file itself, or for a name ending in
// .json the XML that `python3 platforms/generate.py --description FILE -o TMP` writes (the
// interpreter is fixed at build time, DDL_PYTHON; the generator is the one beside the tool's data,
// harness/data_dir.hpp), with `--nodes N` when `nodes` > 0 (a description only: ddlsim --workload
// --sweep generates each size of the machine). The temporary file lives as long as this object.
class PlatformSource {
 public:
  explicit PlatformSource(const std::string& platform, int nodes = 0);
  ~PlatformSource();
  PlatformSource(const PlatformSource&) = delete;
  PlatformSource& operator=(const PlatformSource&) = delete;
  const std::string& xml() const { return xml_; }
  // What messages and headers call it: the description's name, or the file's.
  const std::string& shown() const { return shown_; }

 private:
  std::string xml_, shown_;
  bool generated_ = false;
};

// Whether --platform names a machine description (NAME.json) rather than a SimGrid file.
bool is_description(const std::string& platform);

// The generator's limit: a description of 1024 nodes is written in seconds.
inline constexpr int kGeneratorTimeoutSeconds = 300;

}  // namespace ddl::sim
