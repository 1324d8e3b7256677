// Traces: one event per communicator operation, the same schema from ddlsim (simulated time)
// and ddlrun (aligned wall clock), so a prediction and a measurement can be laid side by side.
// Two line-based file formats, chosen by the file's extension (harness/README.md, "Traces"):
//   .csv   - header line exactly trace_csv_header(), then one event per line;
//   .jsonl - one JSON object per line, keyed by the same column names.
// Both are written and read back exactly (times with the shortest round-trip spelling), and
// either exports to Chrome trace JSON (one track per rank) for Perfetto / chrome://tracing.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/output_file.hpp"

namespace ddl::harness {

// The help of ddlsim's and ddlrun's --trace flag, spelled once.
inline constexpr const char* kTraceFlagHelp =
    "write every operation of every rank to this file: .csv or .jsonl (schema: harness/README.md)";

enum class TraceKind { send, recv, reduce, copy, divide, compute, get, put };
const char* to_string(TraceKind kind);
TraceKind parse_trace_kind(std::string_view text);  // InvalidArgument quoting the input

struct TraceEvent {
  // Which collective run the event belongs to, so one file can hold a whole sweep.
  std::string algo;
  std::size_t size = 0;  // the collective's buffer, bytes
  int iteration = 0;     // timed iterations 0..n-1; warm-ups are -w..-1
  int rank = 0;
  TraceKind kind = TraceKind::send;
  int peer = -1;          // send/recv: the other rank; -1 for local work
  std::size_t bytes = 0;  // bytes moved or touched (reduce: bytes of the result)
  int tag = -1;           // send/recv: the message tag; -1 for local work
  std::string phase;      // the algorithm's phase annotation ("reduce_scatter", ...), may be empty
  int dimension = -1;     // 0-based grid dimension, -1 for none
  double start_us = 0;    // posted (send/recv/compute) or begun (local work)
  double end_us = 0;      // its wait returned (send/recv/compute) or the work ended
  bool operator==(const TraceEvent&) const = default;
};

// The csv columns in order; a jsonl event has the same fields under the same names.
inline constexpr const char* kTraceColumns[] = {"algo",  "size", "iteration", "rank",
                                                "kind",  "peer", "bytes",     "tag",
                                                "phase", "dim",  "start_us",  "end_us"};

enum class TraceFormat { csv, jsonl };
// By extension: ".csv" or ".jsonl"; anything else throws InvalidArgument naming both.
TraceFormat trace_format_for(const std::string& path);

std::string trace_csv_header();
// The header (csv only; jsonl has none), then the events, one per line. Writing and reading
// are separate so ranks' parts can be concatenated under one header.
void write_trace_header(std::ostream& out, TraceFormat format);
void write_trace_events(std::ostream& out, TraceFormat format,
                        const std::vector<TraceEvent>& events);
// Reads a whole file's text; throws InvalidArgument naming `source` and the line for a wrong
// header, a missing or malformed field.
std::vector<TraceEvent> read_trace(std::istream& in, TraceFormat format, const std::string& source);
std::vector<TraceEvent> read_trace_file(const std::string& path);

// A trace file opened before the run, so a bad --trace (extension, unwritable place) stops the
// tool before it spends time on the run, with one message naming the path. It is written
// all-or-nothing (ddl::AtomicOutput): until close() the events go to a temporary file beside
// it, so a run that fails (or is killed) leaves an existing file at PATH as it was.
class TraceFile {
 public:
  explicit TraceFile(const std::string& path);
  TraceFormat format() const { return format_; }
  std::ostream& stream() { return out_->stream(); }
  // Flushes and moves the file into place; throws BackendError naming the path if anything
  // failed to write.
  void close();

 private:
  std::string path_;
  TraceFormat format_;
  std::unique_ptr<AtomicOutput> out_;
};

// Chrome trace JSON (the "Trace Event Format"): {"traceEvents": [...]}, one complete ("X") event
// per trace event on track tid = rank of process pid 0, named "<kind> <phase>", ts and dur in
// microseconds, the other fields under "args"; plus one thread_name metadata event per rank
// naming its track "rank N".
void write_chrome_trace(std::ostream& out, const std::vector<TraceEvent>& events);

}  // namespace ddl::harness
