#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "algorithms/error.hpp"
#include "harness/data_dir.hpp"

namespace fs = std::filesystem;

namespace {

// An install prefix (bin/, share/ddl/) and a source tree, made per test case and removed after.
struct Layout {
  fs::path root = fs::temp_directory_path() / ("ddl_data_dir_" + std::to_string(::getpid()));
  fs::path tool = root / "prefix" / "bin" / "ddlsim";
  fs::path share = root / "prefix" / "share" / "ddl";
  fs::path source = root / "src";
  Layout() {
    fs::remove_all(root);
    fs::create_directories(tool.parent_path());
  }
  ~Layout() { fs::remove_all(root); }
};

std::string message(const std::string& exe, const std::string& source) {
  try {
    ddl::harness::find_data_dir(exe, "../share/ddl", source);
  } catch (const ddl::InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("data dir: an installed tool uses share/ddl before the source tree") {
  Layout l;
  fs::create_directories(l.share / "platforms");
  fs::create_directories(l.source);
  CHECK(ddl::harness::find_data_dir(l.tool.string(), "../share/ddl", l.source.string()) ==
        l.share.string());
}

TEST_CASE("data dir: workloads/ alone marks the installed data too") {
  Layout l;
  fs::create_directories(l.share / "workloads");
  CHECK(ddl::harness::find_data_dir(l.tool.string(), "../share/ddl", l.source.string()) ==
        l.share.string());
}

TEST_CASE("data dir: a tool with no share/ddl beside it uses the source tree") {
  Layout l;
  fs::create_directories(l.share);  // empty: neither platforms/ nor workloads/
  fs::create_directories(l.source);
  CHECK(ddl::harness::find_data_dir(l.tool.string(), "../share/ddl", l.source.string()) ==
        l.source.string());
  CHECK(ddl::harness::find_data_dir("", "../share/ddl", l.source.string()) == l.source.string());
}

TEST_CASE("data dir: neither place is an error naming both") {
  Layout l;
  CHECK(message(l.tool.string(), l.source.string()) ==
        "ddl's data (platforms/, workloads/) is in neither " + l.share.string() +
            " (beside the installed tool) nor " + l.source.string() +
            " (the source tree it was built from): reinstall ddl, or give the file's path");
}

TEST_CASE("data dir: the running test program, built in the tree, finds the source tree") {
  CHECK(fs::is_directory(fs::path(ddl::harness::data_dir()) / "platforms"));
  CHECK(fs::is_directory(fs::path(ddl::harness::data_dir()) / "workloads"));
}
