// The one way every ddl tool reads its command line (ddlsim, ddlrun, ddltrace, ddlcalibrate):
// Boost.Program_options underneath, with the strictness it lacks by default, so a mistyped
// command line is one clear message instead of a run that does something else:
//   - a stray positional argument is an error (boost drops them silently: `ddlsim
//     platforms/s822lc_2.xml` used to run the default platform);
//   - `-c 0` / `-c 1` / `--check 0` mean what they mean in nccl-tests (a bare switch would take
//     the 0 as a stray argument and turn checking on);
//   - every boost error becomes InvalidArgument ending in "(see TOOL --help)".
// Numbers are parsed here too, strictly: "-2" is not a count, "inf" is not a time.
#pragma once

#include <boost/program_options.hpp>
#include <initializer_list>
#include <string>
#include <string_view>

namespace ddl::harness {

// Parses argv[1..argc) against `desc`. `positional` names the options that take positional
// arguments (ddltrace's trace file); without one, any positional argument is refused.
boost::program_options::variables_map parse_arguments(
    int argc, const char* const* argv, const boost::program_options::options_description& desc,
    const std::string& tool,
    const boost::program_options::positional_options_description& positional = {});

// True when `flag` was given on the command line (not merely defaulted).
bool given(const boost::program_options::variables_map& vm, const char* flag);

// Throws InvalidArgument "--F <why>" for the first of `flags` given on the command line, e.g.
// refuse_given(vm, {"minbytes", "maxbytes"}, "does not go with --workload (...)").
void refuse_given(const boost::program_options::variables_map& vm,
                  std::initializer_list<const char*> flags, const std::string& why);

// A decimal integer in [min, max]: no sign where min >= 0, no spaces, no suffix. Throws
// InvalidArgument "bad --FLAG 'TEXT': ..." naming the range.
long long parse_integer(std::string_view text, const std::string& flag, long long min,
                        long long max);

// A finite decimal number of seconds in (0, max_s]: "inf", "nan", 0, negatives and values above
// max_s are refused naming the flag (a wait "bounded" by inf is no bound).
double parse_seconds(std::string_view text, const std::string& flag, double max_s);

// A finite decimal number strictly between low and high (a tolerance in (0, 1)): "inf", "nan",
// the bounds themselves and anything outside are refused naming the flag and the range.
double parse_number(std::string_view text, const std::string& flag, double low, double high);

}  // namespace ddl::harness
