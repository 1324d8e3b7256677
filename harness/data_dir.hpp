// Where a tool finds ddl's data (platforms/*.xml, workloads/*.csv): beside an installed tool,
// <prefix>/share/ddl (the tool in <prefix>/bin); run from a build tree, the source tree it was
// built from. Both are laid out alike (platforms/, workloads/), so a relative path such as
// "platforms/s822lc_2.xml" means the same file in either.
#pragma once

#include <string>

namespace ddl::harness {

// The data directory of a tool at `executable`: `executable`'s directory joined with
// `relative_data_dir` (the installed layout, e.g. "../share/ddl") when that holds platforms/ or
// workloads/, else `source_dir` when it exists. Throws InvalidArgument naming both places when
// neither does (an installed tool whose data was removed, a build tree whose sources moved).
std::string find_data_dir(const std::string& executable, const std::string& relative_data_dir,
                          const std::string& source_dir);

// find_data_dir for the running program (/proc/self/exe) with the directories the build gave it:
// DDL_RELATIVE_DATA_DIR and DDL_SOURCE_DATA_DIR, compiled into data_dir.cpp.
std::string data_dir();

// A relative path that does not exist from the current directory, looked up in data_dir(): the
// tools' `--platform platforms/s822lc_64.xml` works from anywhere. Otherwise `path` itself.
std::string resolve_data_path(const std::string& path);

// An LLM description a tool's `flag` names: a shipped NAME of data_dir()'s workloads/llm/FOLDER
// (models, gpus) or a path ending in .json. InvalidArgument naming the flag, the value and the
// shipped names when it is neither.
std::string llm_data_file(const std::string& value, const std::string& folder, const char* flag);

}  // namespace ddl::harness
