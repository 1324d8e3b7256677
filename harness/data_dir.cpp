#include "harness/data_dir.hpp"

#include <filesystem>
#include <set>
#include <system_error>

#include "algorithms/error.hpp"

namespace ddl::harness {

namespace fs = std::filesystem;

std::string find_data_dir(const std::string& executable, const std::string& relative_data_dir,
                          const std::string& source_dir) {
  std::error_code ec;
  // An unknown executable (no /proc) has no installed data beside it, rather than data
  // relative to whatever the current directory is.
  const fs::path installed =
      executable.empty()
          ? fs::path("(unknown executable)") / relative_data_dir
          : (fs::path(executable).parent_path() / relative_data_dir).lexically_normal();
  if (!executable.empty() && (fs::is_directory(installed / "platforms", ec) ||
                              fs::is_directory(installed / "workloads", ec)))
    return installed.string();
  if (fs::is_directory(source_dir, ec)) return source_dir;
  throw InvalidArgument("ddl's data (platforms/, workloads/) is in neither " + installed.string() +
                        " (beside the installed tool) nor " + source_dir +
                        " (the source tree it was built from): reinstall ddl, or give the "
                        "file's path");
}

std::string data_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return find_data_dir(ec ? std::string() : self.string(), DDL_RELATIVE_DATA_DIR,
                       DDL_SOURCE_DATA_DIR);
}

std::string resolve_data_path(const std::string& path) {
  const fs::path given(path);
  std::error_code ec;
  if (given.is_relative() && !fs::exists(given, ec)) {
    // data_dir() throws naming both places when there is no data directory at all.
    const fs::path data = fs::path(data_dir()) / given;
    if (fs::exists(data, ec)) return data.string();
  }
  return path;
}

std::string llm_data_file(const std::string& value, const std::string& folder, const char* flag) {
  if (value.size() > 5 && value.substr(value.size() - 5) == ".json") return value;
  const std::string dir = data_dir() + "/workloads/llm/" + folder;
  if (std::filesystem::exists(dir + "/" + value + ".json")) return dir + "/" + value + ".json";
  std::set<std::string> known;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".json") known.insert(e.path().stem().string());
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  throw InvalidArgument(std::string(flag) + " '" + value + "': no such " +
                        folder.substr(0, folder.size() - 1) + " (shipped: " + list +
                        "; or give a .json file)");
}

}  // namespace ddl::harness
