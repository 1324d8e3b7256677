// Output files that a run cannot destroy by accident.
//
// A tool that writes a result (trace, report, platform) must (1) refuse before any work when
// the result could not be written at all, (2) never write over one of its own inputs, and (3)
// leave the previous file intact when the run fails half-way. These three helpers are those
// rules; every tool that writes a file uses them.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ddl {

// Throws InvalidArgument naming both paths when an output is the same file as an input or as
// another output. Files are compared as files, not as spellings: an existing path by device and
// inode (so hard links, symlinks and "./x" vs "x" are caught), a path that does not exist yet by
// the canonical path of its parent directory plus its name. Empty paths (an option not given)
// and "-" (standard output) are skipped.
void check_distinct_files(const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs);

// Throws InvalidArgument "cannot write PATH: REASON" when PATH could not be written: it is a
// directory, its directory does not exist or is not writable, the file itself is read-only.
// Call it before the run starts, so a long run does not end in a lost result. "-" is accepted.
void check_writable(const std::string& path);

// Throws InvalidArgument "cannot read WHAT 'PATH': REASON" unless PATH is a regular file of at
// most max_bytes that can be read: a directory (which an ifstream opens and reads as empty, so the
// reader would complain about a missing header), a FIFO (which blocks until a writer comes), a
// device such as /dev/zero (endless), a socket, a missing or unreadable file, a file over the
// limit. WHAT names the role: "trace file", "workload file"; the limit is the role's (what a
// reader holds in memory or a sane input of that kind can be), said in the message.
void check_readable(const std::string& path, const std::string& what, std::uintmax_t max_bytes);

// Flushes standard output and throws ddl::Error "cannot write standard output: REASON" when any
// write to it failed (a full disk, a closed pipe, /dev/full), so a truncated table never ends in
// exit status 0. Every tool calls it after its last output.
void finish_stdout();
// The same right after a flush of `out` when it is standard output (a report's rows as they
// come): a long run stops at its first failed write, with the reason errno holds then.
void check_stdout_written(const std::ostream& out);

// Writes PATH all-or-nothing: the text goes to a temporary file beside PATH, and commit()
// renames it over PATH only when every byte was written. Without commit() (an exception, a
// failed run) the temporary file is removed and PATH keeps what it had before. A PATH that
// exists and is not a regular file (/dev/null, a FIFO) is written directly, since it cannot
// be replaced by a rename. A SIGINT, SIGTERM or SIGHUP that ends the process while the file is
// open removes the temporary file first (where the signal's action was the default, which ends
// the process; a handler the program installed itself is left alone).
class AtomicOutput {
 public:
  // Throws InvalidArgument (as check_writable) when the temporary file cannot be created.
  explicit AtomicOutput(std::string path);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();

  std::ostream& stream() { return out_; }
  // Flushes, checks that every write succeeded, and moves the file into place. Throws
  // ddl::Error "cannot write PATH: REASON" (the target is left untouched) when it did not.
  void commit();

  const std::string& path() const { return path_; }

 private:
  std::string path_;    // what the caller asked for
  std::string target_;  // path_ with symlinks resolved: the rename replaces the file, not the link
  std::string temp_;    // empty when writing directly
  std::ofstream out_;
  bool committed_ = false;
  int signal_slot_ = -1;  // where a signal handler finds temp_ to remove it
};

// Where a tool's report goes: standard output, or --output FILE written all or nothing (under
// mpirun, standard output passes through mpirun, which does not report a write that failed: a
// file does). Opened at once, so a bad path stops the run before it starts.
class ResultOutput {
 public:
  explicit ResultOutput(const std::optional<std::string>& path);
  std::ostream& stream();
  // The file moved into place, or standard output flushed; throws ddl::Error when a write failed.
  void commit();

 private:
  std::optional<AtomicOutput> file_;
};

}  // namespace ddl
