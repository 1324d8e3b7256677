// Trace files (harness/trace.hpp), csv or jsonl by the first byte. An accepted trace must write
// and read back to the same events, and export to Chrome JSON.
#include <sstream>

#include "fuzz/fuzz_common.hpp"
#include "harness/trace.hpp"

using namespace ddl;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const harness::TraceFormat format =
      data[0] & 1 ? harness::TraceFormat::jsonl : harness::TraceFormat::csv;
  std::istringstream in(fuzz::text(data + 1, size - 1));
  DDL_FUZZ_ACCEPT_ERRORS({
    const auto events = harness::read_trace(in, format, "fuzz");
    std::stringstream again;
    harness::write_trace_header(again, format);
    harness::write_trace_events(again, format, events);
    fuzz::require(harness::read_trace(again, format, "again") == events, "write/read round trip");
    std::ostringstream chrome;
    harness::write_chrome_trace(chrome, events);
  });
  return 0;
}
