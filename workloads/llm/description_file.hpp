// The JSON files of workloads/llm (models/, gpus/): read whole, and each figure's source, the
// way both kinds of description refuse what is wrong ("model description 'F': ...").
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace ddl::llm {

// The file's object with a string "name"; InvalidArgument "`where`: cannot be read", "not JSON
// (...)" or "missing field 'name'".
nlohmann::json read_description(const std::string& path, const std::string& where);

// sources.`name`, a non-empty string; InvalidArgument "'name' has no source (sources.name)".
std::string figure_source(const nlohmann::json& doc, const std::string& where, const char* name);

}  // namespace ddl::llm
