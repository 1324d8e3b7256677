#include "real/mpi/call_signature.hpp"

#include <algorithm>

#include "algorithms/error.hpp"

namespace ddl {
namespace {

std::string methods_text(const std::vector<IntraMethod>& methods) {
  std::string s;
  for (std::size_t i = 0; i < methods.size(); ++i)
    s += std::string(i ? "," : "") + (methods[i] == IntraMethod::ring ? "ring" : "hd");
  return s;
}

const CallField* find_field(const std::vector<CallField>& fields, const std::string& name) {
  for (const CallField& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

// "count 1000", or "no count" where the signature lacks the field.
std::string shown(const CallField* field, const std::string& name) {
  if (field == nullptr) return "no " + name;
  return name + " " + (field->value.empty() ? "(none)" : field->value);
}

std::string joined(const std::vector<std::string>& parts) {
  std::string s;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i ? " and " : "") + parts[i];
  return s;
}

}  // namespace

std::string call_signature(std::size_t count, DType type, ReduceOp op, std::string_view algorithm,
                           const Options& options) {
  // Appended into one string, not built from CallFields: it runs on every call of the C API
  // and the Python module, where each allocation shows at the smallest sizes.
  std::string s;
  s.reserve(128);
  s += "count=";
  s += std::to_string(count);
  s += ";dtype=";
  s += to_string(type);
  s += ";op=";
  s += to_string(op);
  s += ";algorithm=";
  s += algorithm;
  s += ";dims=";
  s += options.dims.to_string();
  s += ";methods=";
  s += methods_text(options.methods);
  s += ";rings=";
  s += std::to_string(options.rings);
  s += ";segment=";
  s += std::to_string(options.segment_bytes);
  s += options.hd_order == HdOrder::near ? ";order=near" : ";order=far";
  s += ";root=";
  s += std::to_string(options.root);
  return s;
}

std::vector<CallField> parse_call_signature(std::string_view text) {
  std::vector<CallField> fields;
  if (text.empty()) return fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    const std::string_view piece = text.substr(start, end - start);
    const std::size_t eq = piece.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw InvalidArgument("bad call signature: '" + std::string(piece) +
                            "' is not name=value (in '" + std::string(text) + "')");
    CallField field{std::string(piece.substr(0, eq)), std::string(piece.substr(eq + 1))};
    if (find_field(fields, field.name) != nullptr)
      throw InvalidArgument("bad call signature: field '" + field.name + "' given twice (in '" +
                            std::string(text) + "')");
    fields.push_back(std::move(field));
    if (end == text.size()) return fields;
    start = end + 1;
  }
}

std::string format_call_signature(const std::vector<CallField>& fields) {
  std::string s;
  for (std::size_t i = 0; i < fields.size(); ++i)
    s += (i ? ";" : "") + fields[i].name + "=" + fields[i].value;
  return s;
}

std::string describe_call_difference(std::string_view theirs, int their_rank,
                                     std::string_view reference, int reference_rank) {
  const std::vector<CallField> a = parse_call_signature(theirs);
  const std::vector<CallField> b = parse_call_signature(reference);
  if (theirs == reference) return "";
  // Every name of either, the reference's order first.
  std::vector<std::string> names;
  for (const CallField& f : b) names.push_back(f.name);
  for (const CallField& f : a)
    if (find_field(b, f.name) == nullptr) names.push_back(f.name);
  std::vector<std::string> their_parts, reference_parts;
  for (const std::string& name : names) {
    const CallField* x = find_field(a, name);
    const CallField* y = find_field(b, name);
    if (x != nullptr && y != nullptr && x->value == y->value) continue;
    their_parts.push_back(shown(x, name));
    reference_parts.push_back(shown(y, name));
  }
  const std::string who = "rank " + std::to_string(their_rank) + " has ";
  const std::string other = "rank " + std::to_string(reference_rank) + " has ";
  if (their_parts.empty())
    return who + "'" + std::string(theirs) + "', " + other + "'" + std::string(reference) +
           "' (the same fields in another order)";
  return who + joined(their_parts) + ", " + other + joined(reference_parts);
}

}  // namespace ddl
