#include "workloads/llm/transformer.hpp"

#include "algorithms/error.hpp"
#include "workloads/llm/description_file.hpp"

namespace ddl::llm {

namespace {

using nlohmann::json;

// Every figure's field name in the file, and whether a file may leave it out (then its default).
int figure(const json& doc, const std::string& where, const char* name, bool required, int fallback,
           std::map<std::string, std::string>& sources) {
  if (!doc.contains(name)) {
    if (required) throw InvalidArgument(where + ": missing field '" + name + "'");
    return fallback;
  }
  const json& v = doc.at(name);
  if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > (1LL << 30))
    throw InvalidArgument(where + ": '" + name + "' must be a positive integer");
  sources[name] = figure_source(doc, where, name);
  return v.get<int>();
}

bool flag(const json& doc, const std::string& where, const char* name) {
  if (!doc.contains(name)) return false;
  if (!doc.at(name).is_boolean())
    throw InvalidArgument(where + ": '" + name + "' must be true or false");
  return doc.at(name).get<bool>();
}

}  // namespace

Transformer read_transformer(const std::string& path) {
  const std::string where = "model description '" + path + "'";
  const json doc = read_description(path, where);
  Transformer t;
  t.name = doc.at("name").get<std::string>();
  t.layers = figure(doc, where, "layers", true, 0, t.sources);
  t.hidden = figure(doc, where, "hidden", true, 0, t.sources);
  t.heads = figure(doc, where, "heads", true, 0, t.sources);
  t.kv_heads = figure(doc, where, "kv_heads", false, t.heads, t.sources);
  t.ffn = figure(doc, where, "ffn", true, 0, t.sources);
  t.vocab = figure(doc, where, "vocab", true, 0, t.sources);
  t.sequence = figure(doc, where, "sequence", true, 0, t.sources);
  t.experts = figure(doc, where, "experts", false, 1, t.sources);
  t.top_k = figure(doc, where, "top_k", false, 1, t.sources);
  t.gated_mlp = flag(doc, where, "gated_mlp");
  t.tied_embeddings = flag(doc, where, "tied_embeddings");
  t.learned_positions = flag(doc, where, "learned_positions");
  if (t.hidden % t.heads != 0)
    throw InvalidArgument(where + ": heads (" + std::to_string(t.heads) +
                          ") do not divide hidden (" + std::to_string(t.hidden) + ")");
  if (t.heads % t.kv_heads != 0)
    throw InvalidArgument(where + ": kv_heads (" + std::to_string(t.kv_heads) +
                          ") do not divide heads (" + std::to_string(t.heads) + ")");
  if (t.top_k > t.experts)
    throw InvalidArgument(where + ": top_k (" + std::to_string(t.top_k) + ") exceeds experts (" +
                          std::to_string(t.experts) + ")");
  return t;
}

std::size_t layer_parameters(const Transformer& t) {
  const auto h = static_cast<std::size_t>(t.hidden), f = static_cast<std::size_t>(t.ffn);
  const std::size_t kv =
      static_cast<std::size_t>(t.kv_heads) * static_cast<std::size_t>(t.head_dim());
  const std::size_t attention = h * (h + 2 * kv) + h * h;  // QKV, then the output projection
  const std::size_t mlp = (t.gated_mlp ? 3 : 2) * h * f * static_cast<std::size_t>(t.experts);
  const std::size_t router = t.moe() ? h * static_cast<std::size_t>(t.experts) : 0;
  return attention + mlp + router + 2 * h;  // two norms
}

std::size_t embedding_parameters(const Transformer& t) {
  const auto h = static_cast<std::size_t>(t.hidden);
  return static_cast<std::size_t>(t.vocab) * h +
         (t.learned_positions ? static_cast<std::size_t>(t.sequence) * h : 0);
}

std::size_t output_parameters(const Transformer& t) {
  return t.tied_embeddings ? 0
                           : static_cast<std::size_t>(t.vocab) * static_cast<std::size_t>(t.hidden);
}

std::size_t parameter_count(const Transformer& t) {
  return static_cast<std::size_t>(t.layers) * layer_parameters(t) + embedding_parameters(t) +
         output_parameters(t) + static_cast<std::size_t>(t.hidden);  // the final norm
}

}  // namespace ddl::llm
