#include "harness/run_info.hpp"

#include <nlohmann/json.hpp>
#include <sstream>

namespace ddl::harness {

std::string RunInfo::field(const std::string& key) const {
  for (const auto& [k, v] : fields)
    if (k == key) return v;
  return "";
}

const char* version() {
  return DDL_VERSION;
}

std::string quoted_arguments(int argc, const char* const* argv) {
  std::string out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789-_=+./:,@%") == std::string::npos;
    if (!out.empty()) out += ' ';
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

RunInfo run_info(const std::string& tool, int argc, const char* const* argv) {
  RunInfo info;
  info.add("tool", tool);
  info.add("version", version());
  info.add("arguments", quoted_arguments(argc, argv));
  return info;
}

std::string preamble(const RunInfo& info) {
  std::string out;
  for (const auto& [key, value] : info.fields) out += "# " + key + " = " + value + "\n";
  out += note_lines(info.header);
  return out;
}

std::string note_lines(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += "# " + n + "\n";
  return out;
}

std::string metadata_json(const RunInfo& info, const std::vector<std::string>& notes) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : info.fields) j[key] = value;
  j["header"] = info.header;
  j["notes"] = notes;
  return j.dump();
}

std::vector<std::pair<std::string, std::string>> preamble_fields(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# ", 0) != 0) continue;
    const std::string body = line.substr(2);
    const auto eq = body.find(" = ");
    if (eq == std::string::npos || eq == 0 || body.find_first_of(" \t") < eq) continue;
    out.emplace_back(body.substr(0, eq), body.substr(eq + 3));
  }
  return out;
}

}  // namespace ddl::harness
