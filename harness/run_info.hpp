// What a report says about the run that made it, so a csv or json file read long after still
// names the tool, its version, the machine and the flags that shaped the numbers:
//   table, csv - "# key = value" lines (the workload files' convention: a key has no blanks),
//                then the prose header lines, each after "# ", before the column header; notes
//                known only once the run is over follow the rows as "# " lines. pandas'
//                read_csv(comment='#') and the project's readers skip them;
//   json       - {"metadata": {key: value, ..., "header": [...], "notes": [...]}, "rows": [...]}.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ddl::harness {

struct RunInfo {
  // tool, version, arguments first (run_info()), then the tool's own: platform or machine, ...
  std::vector<std::pair<std::string, std::string>> fields;
  std::vector<std::string> header;  // prose: platform, mode, model figures, auto's picks

  void add(std::string key, std::string value) {
    fields.emplace_back(std::move(key), std::move(value));
  }
  // The value of `key`, or "" when there is none.
  std::string field(const std::string& key) const;
};

// ddl's version: the CMake project's, compiled into this one place.
const char* version();

// argv[1..argc) joined by spaces, each argument single-quoted where a shell would split or
// expand it, so the line pastes back into a shell as the same command.
std::string quoted_arguments(int argc, const char* const* argv);

// The fields every report begins with: tool, version, arguments.
RunInfo run_info(const std::string& tool, int argc, const char* const* argv);

// The '#' lines of the table and csv preamble.
std::string preamble(const RunInfo& info);
// "# note" lines for what is known after the rows.
std::string note_lines(const std::vector<std::string>& notes);
// The json "metadata" object, compact.
std::string metadata_json(const RunInfo& info, const std::vector<std::string>& notes);

// The "key = value" fields of a preamble read back (comment lines that are no field are left
// out), for a tool that gathers another run's output (ddlsim --workload --sweep).
std::vector<std::pair<std::string, std::string>> preamble_fields(const std::string& text);

}  // namespace ddl::harness
