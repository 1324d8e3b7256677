// Checks on a platform file made before SimGrid parses it, for inputs that SimGrid 3.32 does not
// survive. Its XML parser (surf_parse, flex-generated) corrupts the heap on deep nesting: 500
// nested <zone> elements abort the process (exit 134, "malloc(): invalid next->prev_inuse",
// seen here; about 450 were reported) instead of raising an error we could catch. So the
// nesting depth is measured here first and an absurd one refused with a message naming the file.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ddl::sim {

// Far deeper than any real platform (the shipped ones nest at most 5 deep), far below where
// SimGrid breaks.
inline constexpr std::size_t kMaxPlatformNesting = 64;

// The deepest element nesting of an XML text (comments, processing instructions, the DOCTYPE and
// CDATA sections do not count; quoted attribute values may hold '<' and '>'). Stops counting
// once `stop_above` is passed; `line` receives the line where the deepest element opened.
std::size_t xml_nesting_depth(std::string_view text, std::size_t stop_above,
                              std::size_t* line = nullptr);

// Throws InvalidArgument "platform file 'F': elements nest 65 or more deep (at line L), ..." when
// the file nests deeper than max_depth; a file that cannot be read is left to load_platform.
void check_platform_nesting(const std::string& file, std::size_t max_depth = kMaxPlatformNesting);

}  // namespace ddl::sim
