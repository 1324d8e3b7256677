#include "harness/arguments.hpp"

#include <charconv>
#include <cmath>
#include <sstream>
#include <vector>

#include "algorithms/error.hpp"

namespace po = boost::program_options;

namespace ddl::harness {

namespace {

// nccl-tests spells the check flag `-c 0|1`; boost's implicit values never take the next token,
// so "-c 0" is joined into "--check=0" before boost sees it. Anything else that follows -c that
// is not a flag is joined as well, to be refused by read_common_options with a clear message.
std::vector<std::string> join_check_values(int argc, const char* const* argv) {
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool check = a == "-c" || a == "--check";
    if (check && i + 1 < argc && argv[i + 1][0] != '-' && argv[i + 1][0] != '\0') {
      args.push_back("--check=" + std::string(argv[++i]));
      continue;
    }
    args.push_back(a);
  }
  return args;
}

}  // namespace

namespace {

// Boost 1.74 fills its error messages by substituting each %name% token ("%value%",
// "%canonical_option%", ...) until none is left, so a value or option name that itself holds
// such a token makes what() loop forever (`-n %value%`, found by fuzz_command_line). Such an
// argument is parsed again with every '%' spelled as a fullwidth percent sign, which boost
// leaves alone, to get the message, and the sign is turned back into '%' in it.
constexpr std::string_view kPercent = "%", kStandIn = "\xEF\xBC\x85";  // U+FF05

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

po::variables_map parse_once(const std::vector<std::string>& args,
                             const po::options_description& desc, const std::string& tool,
                             const po::positional_options_description& positional) {
  po::command_line_parser parser(args);
  parser.options(desc);
  if (positional.max_total_count() > 0) parser.positional(positional);
  const po::parsed_options parsed = parser.run();
  for (const po::option& o : parsed.options)
    if (o.position_key >= 0 && o.string_key.empty())
      throw InvalidArgument("unexpected argument '" + o.original_tokens.front() + "': " + tool +
                            " takes no positional arguments; every option is a flag");
  po::variables_map vm;
  po::store(parsed, vm);
  po::notify(vm);
  return vm;
}

}  // namespace

po::variables_map parse_arguments(int argc, const char* const* argv,
                                  const po::options_description& desc, const std::string& tool,
                                  const po::positional_options_description& positional) {
  const std::string see = " (see " + tool + " --help)";
  const std::vector<std::string> args = join_check_values(argc, argv);
  try {
    return parse_once(args, desc, tool, positional);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(e.what() + see);
  } catch (const po::error& e) {
    bool percent = false;
    for (const std::string& a : args) percent = percent || a.find('%') != std::string::npos;
    if (!percent) throw InvalidArgument(e.what() + see);
  }
  std::vector<std::string> escaped;
  for (const std::string& a : args) escaped.push_back(replace_all(a, kPercent, kStandIn));
  try {
    parse_once(escaped, desc, tool, positional);
  } catch (const po::error& e) {
    throw InvalidArgument(replace_all(e.what(), kStandIn, kPercent) + see);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(replace_all(e.what(), kStandIn, kPercent) + see);
  }
  throw InvalidArgument("the command line could not be parsed" + see);  // only '%' made it fail
}

bool given(const po::variables_map& vm, const char* flag) {
  return vm.count(flag) && !vm[flag].defaulted();
}

void refuse_given(const po::variables_map& vm, std::initializer_list<const char*> flags,
                  const std::string& why) {
  for (const char* flag : flags)
    if (given(vm, flag)) throw InvalidArgument(std::string("--") + flag + " " + why);
}

long long parse_integer(std::string_view text, const std::string& flag, long long min,
                        long long max) {
  const std::string range =
      " (an integer from " + std::to_string(min) + " to " + std::to_string(max) + ")";
  long long value = 0;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(first, last, value);
  if (text.empty() || ec == std::errc::invalid_argument || end != last)
    throw InvalidArgument("bad --" + flag + " '" + std::string(text) + "': not an integer" + range);
  if (ec == std::errc::result_out_of_range || value < min || value > max)
    throw InvalidArgument("bad --" + flag + " '" + std::string(text) + "': out of range" + range);
  return value;
}

double parse_seconds(std::string_view text, const std::string& flag, double max_s) {
  double value = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  const std::string got = ", got '" + std::string(text) + "'";
  if (text.empty() || ec != std::errc() || end != last)
    throw InvalidArgument("bad --" + flag + " '" + std::string(text) +
                          "': not a number of seconds");
  if (!std::isfinite(value))
    throw InvalidArgument("--" + flag +
                          " must be a finite number of seconds (every wait is bounded)" + got);
  if (!(value > 0))
    throw InvalidArgument("--" + flag + " must be a positive number of seconds" + got);
  if (value > max_s)
    throw InvalidArgument("--" + flag + " must be at most " +
                          std::to_string(static_cast<long long>(max_s)) + " s" + got);
  return value;
}

double parse_number(std::string_view text, const std::string& flag, double low, double high) {
  std::ostringstream range;
  range << " (a finite number between " << low << " and " << high << ", both excluded)";
  double value = 0;
  const char* last = text.data() + text.size();
  const auto [end, ec] = std::from_chars(text.data(), last, value);
  const bool out_of_range = ec == std::errc::result_out_of_range && end == last;
  if (text.empty() || (ec != std::errc() && !out_of_range) || end != last)
    throw InvalidArgument("bad --" + flag + " '" + std::string(text) + "': not a number" +
                          range.str());
  if (out_of_range || !std::isfinite(value) || !(value > low && value < high))
    throw InvalidArgument("bad --" + flag + " '" + std::string(text) + "': out of range" +
                          range.str());
  return value;
}

}  // namespace ddl::harness
