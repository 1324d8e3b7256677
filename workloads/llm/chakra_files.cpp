#include "workloads/llm/chakra_files.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "algorithms/error.hpp"

namespace ddl::llm {
namespace {

ChakraRank read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InvalidArgument(path + ": cannot be read");
  return read_chakra(in, path);
}

// NAME.RANK.et -> (NAME, RANK); RANK in decimal without leading zeros.
std::optional<std::pair<std::string, int>> split_name(const std::string& name) {
  constexpr std::string_view ext = ".et";
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
    return std::nullopt;
  const std::string stem = name.substr(0, name.size() - ext.size());
  const std::size_t dot = stem.rfind('.');
  if (dot == std::string::npos || dot + 1 == stem.size()) return std::nullopt;
  const std::string digits = stem.substr(dot + 1);
  int rank = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits[0] == '-' ||
      (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  return std::pair{stem.substr(0, dot), rank};
}

// The NAME.RANK.et files of a folder (none when it is not one): name -> ranks.
std::map<std::string, std::set<int>> sets_in(const std::filesystem::path& dir) {
  std::error_code ec;
  std::map<std::string, std::set<int>> sets;
  if (!std::filesystem::is_directory(dir, ec)) return sets;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec))
      if (const auto parts = split_name(it->path().filename().string()))
        sets[parts->first].insert(parts->second);
  if (ec) throw InvalidArgument(dir.string() + ": cannot be read (" + ec.message() + ")");
  return sets;
}

}  // namespace

std::string chakra_file(const std::string& prefix, int rank) {
  return prefix + "." + std::to_string(rank) + ".et";
}

std::vector<ChakraRank> read_chakra_ranks(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {read_file(path)};
  std::string prefix = path;
  if (fs::is_directory(path, ec)) {
    const auto sets = sets_in(path);
    if (sets.size() != 1) {
      std::string names;
      for (const auto& [name, ranks] : sets) names += (names.empty() ? "" : ", ") + name;
      throw InvalidArgument(path + (sets.empty() ? ": holds no Chakra trace (NAME.RANK.et files)"
                                                 : ": holds several Chakra traces (" + names +
                                                       "): name one by its prefix"));
    }
    prefix = (fs::path(path) / sets.begin()->first).string();
  }
  const fs::path p(prefix);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  const auto sets = sets_in(dir);
  const auto set = sets.find(p.filename().string());
  if (set == sets.end())
    throw InvalidArgument(path + ": no such file, and no " + chakra_file(prefix, 0) +
                          " (a Chakra trace is a FILE, a PREFIX of PREFIX.0.et, PREFIX.1.et, "
                          "..., or a folder holding one such set)");
  const int n = *set->second.rbegin() + 1;
  for (int r = 0; r < n; ++r)
    if (!set->second.count(r))
      throw InvalidArgument(chakra_file(prefix, r) + " is missing: the set runs from " +
                            chakra_file(prefix, 0) + " to " + chakra_file(prefix, n - 1) +
                            " (a rank's file for every rank)");
  std::vector<ChakraRank> ranks;
  for (int r = 0; r < n; ++r) {
    ranks.push_back(read_file(chakra_file(prefix, r)));
    const ChakraRank& got = ranks.back();
    if (got.rank && *got.rank != r)
      throw InvalidArgument(got.file + ": its metadata says rank " + std::to_string(*got.rank) +
                            ", its name rank " + std::to_string(r));
    if (!got.layout.empty() && !ranks.front().layout.empty() && got.layout != ranks.front().layout)
      throw InvalidArgument(got.file + ": layout '" + got.layout + "', but " + ranks.front().file +
                            " has '" + ranks.front().layout + "'");
  }
  return ranks;
}

}  // namespace ddl::llm
