// The platform outline reader (sim/platform_outline.hpp): expat over the file, then ddl's checks
// of rates, latencies, speeds, routes and routing names, and the host limit (a seed passes it by
// one host). Whatever the text, it either refuses it with a ddl error or returns an outline whose
// indices all point into it.
#include <unistd.h>

#include <fstream>

#include "fuzz/fuzz_common.hpp"
#include "sim/platform_outline.hpp"

using namespace ddl;

namespace {

// One scratch file per process, rewritten for each input: the reader takes a path.
const std::string& scratch() {
  static const std::string path = [] {
    char name[] = "/tmp/ddl_fuzz_outline_XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) std::abort();
    close(fd);
    return std::string(name);
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  {
    std::ofstream out(scratch(), std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  DDL_FUZZ_ACCEPT_ERRORS({
    const sim::PlatformOutline o = sim::read_platform_outline(scratch());
    const int zones = static_cast<int>(o.zones.size());
    for (const sim::OutlineZone& z : o.zones)
      fuzz::require(z.parent >= -1 && z.parent < zones, "a zone's parent is a zone");
    for (const auto& [point, zone] : o.zone_of)
      fuzz::require(zone >= 0 && zone < zones, "every netpoint sits in a zone");
  });
  return 0;
}
