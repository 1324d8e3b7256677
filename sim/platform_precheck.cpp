#include "sim/platform_precheck.hpp"

#include <fstream>
#include <sstream>

#include "algorithms/error.hpp"

namespace ddl::sim {

std::size_t xml_nesting_depth(std::string_view text, std::size_t stop_above, std::size_t* line) {
  std::size_t depth = 0, deepest = 0, current_line = 1, deepest_line = 1;
  const std::size_t n = text.size();
  // Moves i past `end` (counting newlines), or to the end of the text when it never comes.
  const auto skip_past = [&](std::size_t& i, std::string_view end) {
    const std::size_t at = text.find(end, i);
    const std::size_t stop = at == std::string_view::npos ? n : at + end.size();
    for (; i < stop; ++i) current_line += text[i] == '\n';
  };
  for (std::size_t i = 0; i < n;) {
    if (text[i] != '<') {
      current_line += text[i++] == '\n';
      continue;
    }
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("<!--")) {
      skip_past(i, "-->");
    } else if (rest.starts_with("<![CDATA[")) {
      skip_past(i, "]]>");
    } else if (rest.starts_with("<?")) {
      skip_past(i, "?>");
    } else if (rest.starts_with("<!")) {
      // <!DOCTYPE ...> with an optional [internal subset]
      int brackets = 0;
      for (++i; i < n && !(text[i] == '>' && brackets == 0); ++i) {
        brackets += text[i] == '[' ? 1 : text[i] == ']' ? -1 : 0;
        current_line += text[i] == '\n';
      }
      ++i;
    } else if (rest.starts_with("</")) {
      if (depth > 0) --depth;
      skip_past(i, ">");
    } else {
      // A start tag: find its end outside quoted attribute values; "/>" closes it at once.
      const std::size_t opened_at = current_line;
      char quote = 0;
      std::size_t j = i + 1;
      for (; j < n; ++j) {
        const char c = text[j];
        current_line += c == '\n';
        if (quote) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '>') {
          break;
        }
      }
      const bool self_closing = j < n && j > i + 1 && text[j - 1] == '/';
      i = j + 1;
      // A self-closing element is one level deeper too, but closes at once.
      if (depth + 1 > deepest) {
        deepest = depth + 1;
        deepest_line = opened_at;
        if (deepest > stop_above) break;
      }
      if (!self_closing) ++depth;
    }
  }
  if (line) *line = deepest_line;
  return deepest;
}

void check_platform_nesting(const std::string& file, std::size_t max_depth) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return;  // load_platform names a missing or unreadable file
  std::ostringstream text;
  text << in.rdbuf();
  std::size_t line = 0;
  const std::size_t depth = xml_nesting_depth(text.str(), max_depth, &line);
  if (depth > max_depth)
    throw InvalidArgument("platform file '" + file + "': elements nest " + std::to_string(depth) +
                          " or more deep (at line " + std::to_string(line) + "), more than the " +
                          std::to_string(max_depth) +
                          " accepted: SimGrid's XML parser overflows on deep nesting, and no real "
                          "platform nests more than a few zones");
}

}  // namespace ddl::sim
