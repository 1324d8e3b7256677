#include "planner/plan_file.hpp"

#include <fstream>
#include <nlohmann/json.hpp>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"

namespace ddl {

namespace {

using nlohmann::json;

constexpr const char* kFormat = "ddl-plan";
constexpr int kVersion = 1;

const json& field(const json& object, const char* name, const std::string& where,
                  json::value_t type) {
  if (!object.is_object() || !object.contains(name))
    throw InvalidArgument(where + ": missing field '" + name + "'");
  const json& v = object.at(name);
  const bool ok = type == json::value_t::number_unsigned ? v.is_number_unsigned()
                  : type == json::value_t::number_float  ? v.is_number()
                                                         : v.type() == type;
  if (!ok) throw InvalidArgument(where + ": field '" + name + "' has the wrong type");
  return v;
}

}  // namespace

PlanFile read_plan_file(const std::string& path) {
  const std::string where = "plan file '" + path + "'";
  check_readable(path, "plan file", std::uintmax_t{16} << 20);  // a plan is a few KB
  std::ifstream in(path);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::exception& e) {
    throw InvalidArgument(where + ": not JSON (" + e.what() + ")");
  }
  if (field(doc, "format", where, json::value_t::string).get<std::string>() != kFormat)
    throw InvalidArgument(where + ": format is not '" + std::string(kFormat) + "'");
  if (field(doc, "version", where, json::value_t::number_unsigned).get<int>() != kVersion)
    throw InvalidArgument(where + ": version is not " + std::to_string(kVersion));
  PlanFile f;
  f.platform = field(doc, "platform", where, json::value_t::string).get<std::string>();
  f.dims = field(doc, "dims", where, json::value_t::string).get<std::string>();
  const json& ranks = field(doc, "ranks", where, json::value_t::number_unsigned);
  if (ranks.get<unsigned long long>() > 1u << 30)
    throw InvalidArgument(where + ": ranks too large");
  f.plan.ranks = ranks.get<int>();
  // Whose auto the plan is for; absent (plans written before other collectives had plans):
  // allreduce's.
  if (doc.contains("collective")) {
    try {
      f.plan.collective = parse_collective(
          field(doc, "collective", where, json::value_t::string).get<std::string>());
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(where + ": " + e.what());
    }
  }
  const json& entries = field(doc, "entries", where, json::value_t::array);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string at = where + ": entries[" + std::to_string(i) + "]";
    PlanEntry e;
    e.min_bytes =
        field(entries[i], "min_bytes", at, json::value_t::number_unsigned).get<std::size_t>();
    e.max_bytes =
        field(entries[i], "max_bytes", at, json::value_t::number_unsigned).get<std::size_t>();
    e.algorithm = field(entries[i], "algorithm", at, json::value_t::string).get<std::string>();
    f.plan.entries.push_back(std::move(e));
  }
  try {
    f.plan.validate();
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(where + ": " + e.what());
  }
  return f;
}

void write_plan_file(const std::string& path, const PlanFile& f) {
  json doc = {{"format", kFormat},      {"version", kVersion},
              {"platform", f.platform}, {"ranks", f.plan.ranks},
              {"dims", f.dims},         {"collective", std::string(to_string(f.plan.collective))}};
  json entries = json::array();
  for (const PlanEntry& e : f.plan.entries)
    entries.push_back(
        {{"min_bytes", e.min_bytes}, {"max_bytes", e.max_bytes}, {"algorithm", e.algorithm}});
  doc["entries"] = entries;
  json evidence = json::array();
  for (const PlanEvidence& e : f.evidence) {
    evidence.push_back({{"bytes", e.bytes},
                        {"algorithm", e.algorithm},
                        {"simulated_us", e.simulated_us},
                        {"model_us", e.model_us},
                        {"alpha_beta", e.alpha_beta},
                        {"alpha_beta_us", e.alpha_beta_us},
                        {"candidates", e.candidates},
                        {"simulated", e.simulated}});
    if (!e.measured_us.empty()) {
      json measured = json::object();
      for (const auto& [name, us] : e.measured_us) measured[name] = us;
      evidence.back()["measured_us"] = measured;
    }
  }
  doc["evidence"] = evidence;
  AtomicOutput out(path);
  out.stream() << doc.dump(1) << "\n";
  out.commit();
}

}  // namespace ddl
