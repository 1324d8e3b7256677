#include "algorithms/algorithm_spec.hpp"

#include <charconv>
#include <limits>

#include "algorithms/error.hpp"

namespace ddl {

namespace {

constexpr long long kMaxRings = 1024;
constexpr long long kMaxChannels = 64;
constexpr long long kMaxChunks = 1024;

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t at = text.find(sep, pos);
    parts.push_back(text.substr(pos, at == std::string_view::npos ? at : at - pos));
    if (at == std::string_view::npos) return parts;
    pos = at + 1;
  }
}

bool is_method(std::string_view token) {
  return token == "ring" || token == "hd";
}

// The first item of a methods field that is no method ("foo" of "ring,foo").
std::string_view misspelt_method(std::string_view field) {
  for (std::string_view m : split(field, ','))
    if (!is_method(m)) return m;
  return field;
}

bool all_methods(std::string_view field) {
  for (std::string_view m : split(field, ','))
    if (!is_method(m)) return false;
  return true;
}

bool looks_like_dims(std::string_view field) {
  return field.find_first_of("0123456789") != std::string_view::npos &&
         field.find_first_not_of("0123456789x") == std::string_view::npos;
}

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(std::string_view token, const std::string& why) const {
    throw InvalidArgument("bad algorithm '" + std::string(text_) + "': '" + std::string(token) +
                          "' " + why +
                          " (syntax: name[:dims][:methods][:key=value,...], e.g. "
                          "ddl:4x8x8:ring,hd,hd:rings=2)");
  }

  long long integer(std::string_view token, std::string_view value, long long min,
                    long long max) const {
    long long v = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size())
      fail(token, "needs a whole number");
    if (v < min || v > max)
      fail(token, "is out of range (" + std::to_string(min) + ".." + std::to_string(max) + ")");
    return v;
  }

  AlgorithmSpec parse() {
    const std::vector<std::string_view> fields = split(text_, ':');
    AlgorithmSpec spec;
    spec.name = std::string(fields[0]);
    const Algorithm* algo = find_registered(fields[0]);
    if (!algo) {
      std::string known;
      for (const Algorithm& a : algorithms()) known += (known.empty() ? "" : ", ") + a.name;
      fail(fields[0], "is not an algorithm (known: " + known + ")");
    }
    int stage = 0;  // 1 dims, 2 methods, 3 keys: each field must come after the last one
    for (std::size_t i = 1; i < fields.size(); ++i) {
      const std::string_view f = fields[i];
      if (f.empty()) fail(f, "is an empty field");
      int kind;
      if (f.find('=') != std::string_view::npos)
        kind = 3;
      else if (looks_like_dims(f))
        kind = 1;
      else if (all_methods(f))
        kind = 2;
      else if (is_method(f.substr(0, f.find(','))))
        fail(misspelt_method(f), "is not a method (known: ring, hd)");
      else
        fail(f, "is neither dims (4x8x8), methods (ring,hd) nor key=value");
      if (kind <= stage) fail(f, "comes after a field it must precede, or twice");
      stage = kind;
      if (kind == 1) {
        take(*algo, kSpecDims, f, "dims");
        try {
          spec.dims = Dims::parse(f);
        } catch (const InvalidArgument& e) {
          fail(f, std::string("is not a grid: ") + e.what());
        }
      } else if (kind == 2) {
        take(*algo, kSpecMethods, f, "methods");
        for (std::string_view m : split(f, ','))
          spec.methods.push_back(m == "ring" ? IntraMethod::ring : IntraMethod::halving_doubling);
      } else {
        for (std::string_view kv : split(f, ',')) key_value(*algo, kv, spec);
      }
    }
    if (spec.dims && !spec.methods.empty() &&
        spec.methods.size() != static_cast<std::size_t>(spec.dims->count()))
      fail(fields[2], "gives " + std::to_string(spec.methods.size()) + " method(s) for the " +
                          std::to_string(spec.dims->count()) + " dimension(s) of " +
                          spec.dims->to_string());
    return spec;
  }

 private:
  void take(const Algorithm& algo, unsigned field, std::string_view token, const char* what) const {
    if (!(algo.fields & field))
      fail(token, std::string("sets ") + what + ", which " + algo.name + " does not take");
  }

  void key_value(const Algorithm& algo, std::string_view kv, AlgorithmSpec& spec) const {
    const std::size_t eq = kv.find('=');
    if (eq == std::string_view::npos) fail(kv, "is not key=value");
    const std::string_view key = kv.substr(0, eq), value = kv.substr(eq + 1);
    if (key == "rings") {
      take(algo, kSpecRings, kv, "rings");
      if (spec.rings) fail(kv, "is given twice");
      spec.rings = static_cast<int>(integer(kv, value, 1, kMaxRings));
    } else if (key == "channels") {
      take(algo, kSpecChannels, kv, "channels");
      if (spec.channels) fail(kv, "is given twice");
      spec.channels = static_cast<int>(integer(kv, value, 1, kMaxChannels));
    } else if (key == "chunks") {
      take(algo, kSpecChunks, kv, "chunks");
      if (spec.chunks) fail(kv, "is given twice");
      spec.chunks = static_cast<int>(integer(kv, value, 1, kMaxChunks));
    } else if (key == "segment") {
      if (spec.segment_bytes) fail(kv, "is given twice");
      spec.segment_bytes =
          static_cast<std::size_t>(integer(kv, value, 0, std::numeric_limits<long long>::max()));
    } else if (key == "order") {
      take(algo, kSpecOrder, kv, "order");
      if (spec.order) fail(kv, "is given twice");
      if (value == "near")
        spec.order = HdOrder::near;
      else if (value == "far")
        spec.order = HdOrder::far;
      else
        fail(kv, "needs near or far");
    } else {
      fail(kv, "has an unknown key (known: rings, channels, chunks, segment, order)");
    }
  }

  std::string_view text_;
};

}  // namespace

bool AlgorithmSpec::plain() const {
  return !dims && methods.empty() && !rings && !channels && !chunks && !segment_bytes && !order;
}

std::string AlgorithmSpec::to_string() const {
  std::string s = name;
  if (dims) s += ":" + dims->to_string();
  if (!methods.empty()) {
    s += ":";
    for (std::size_t i = 0; i < methods.size(); ++i)
      s += std::string(i ? "," : "") + (methods[i] == IntraMethod::ring ? "ring" : "hd");
  }
  std::string keys;
  const auto add = [&](const std::string& kv) { keys += (keys.empty() ? "" : ",") + kv; };
  if (rings) add("rings=" + std::to_string(*rings));
  if (channels) add("channels=" + std::to_string(*channels));
  if (chunks) add("chunks=" + std::to_string(*chunks));
  if (segment_bytes) add("segment=" + std::to_string(*segment_bytes));
  if (order) add(std::string("order=") + (*order == HdOrder::near ? "near" : "far"));
  if (!keys.empty()) s += ":" + keys;
  return s;
}

Options AlgorithmSpec::apply(Options base) const {
  if (dims) base.dims = *dims;
  if (!methods.empty()) base.methods = methods;
  if (rings) base.rings = *rings;
  if (channels) base.channels = *channels;
  if (chunks) base.chunks = *chunks;
  if (segment_bytes) base.segment_bytes = *segment_bytes;
  if (order) base.hd_order = *order;
  return base;
}

AlgorithmSpec parse_algorithm_spec(std::string_view text) {
  return Parser(text).parse();
}

std::vector<std::string> split_algorithm_list(std::string_view list) {
  std::vector<std::string> out;
  for (std::string_view token : split(list, ',')) {
    if (token.empty())
      throw InvalidArgument("bad algorithm list '" + std::string(list) + "': empty algorithm name");
    if (!out.empty()) {
      const std::string& cur = out.back();
      const std::vector<std::string_view> fields = split(cur, ':');
      const std::string_view last = fields.back();
      bool more = false;
      if (fields.size() > 1 && last.find('=') != std::string_view::npos) {
        // Inside key=value pairs: the next pair continues them.
        const std::size_t eq = token.find('='), colon = token.find(':');
        more = eq != std::string_view::npos && (colon == std::string_view::npos || eq < colon);
      } else if (fields.size() > 1 && all_methods(last)) {
        const std::string_view head = token.substr(0, token.find(':'));
        const std::size_t have = split(last, ',').size();
        std::size_t want = 0;
        if (fields.size() > 2 && looks_like_dims(fields[1])) want = split(fields[1], 'x').size();
        // Methods short of the dims' count: the token is one of them, even a misspelt one (so
        // the error names it rather than the methods before it).
        more = want > 0 ? have < want : is_method(head);
      }
      if (more) {
        out.back() += "," + std::string(token);
        continue;
      }
    }
    out.emplace_back(token);
  }
  return out;
}

}  // namespace ddl
