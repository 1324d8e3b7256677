#include "workloads/llm/description_file.hpp"

#include <fstream>

#include "algorithms/error.hpp"

namespace ddl::llm {

nlohmann::json read_description(const std::string& path, const std::string& where) {
  std::ifstream in(path);
  if (!in) throw InvalidArgument(where + ": cannot be read");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InvalidArgument(where + ": not JSON (" + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("name") || !doc.at("name").is_string())
    throw InvalidArgument(where + ": missing field 'name'");
  return doc;
}

std::string figure_source(const nlohmann::json& doc, const std::string& where, const char* name) {
  const nlohmann::json& src =
      doc.contains("sources") ? doc.at("sources") : nlohmann::json::object();
  if (!src.is_object() || !src.contains(name) || !src.at(name).is_string() ||
      src.at(name).get<std::string>().empty())
    throw InvalidArgument(where + ": '" + name + "' has no source (sources." + name + ")");
  return src.at(name).get<std::string>();
}

}  // namespace ddl::llm
