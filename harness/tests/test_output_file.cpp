#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "algorithms/error.hpp"
#include "harness/output_file.hpp"

namespace fs = std::filesystem;

namespace {

// A fresh directory per test case, removed at the end.
struct TempDir {
  fs::path dir;
  TempDir() {
    dir = fs::temp_directory_path() / ("ddl_output_file_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~TempDir() { fs::remove_all(dir); }
  std::string operator/(const std::string& name) const { return (dir / name).string(); }
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ddl::InvalidArgument& e) {
    return e.what();
  }
  return "(no InvalidArgument)";
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

}  // namespace

TEST_CASE("check_distinct_files refuses an output that is an input", "[harness][output]") {
  TempDir t;
  spit(t / "in.csv", "x");
  const std::string msg =
      message_of([&] { ddl::check_distinct_files({t / "in.csv"}, {t / "in.csv"}); });
  CHECK(msg == "output " + (t / "in.csv") + " is the same file as input " + (t / "in.csv") +
                   ": writing it would destroy the input");
  // The same file spelled differently, through a symlink and through a hard link.
  fs::create_symlink(t / "in.csv", t / "link.csv");
  fs::create_hard_link(t / "in.csv", t / "hard.csv");
  const std::string dotted = (t.dir / "." / "in.csv").string();
  CHECK_THROWS_AS(ddl::check_distinct_files({t / "in.csv"}, {dotted}), ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::check_distinct_files({t / "in.csv"}, {t / "link.csv"}),
                  ddl::InvalidArgument);
  CHECK_THROWS_AS(ddl::check_distinct_files({t / "hard.csv"}, {t / "in.csv"}),
                  ddl::InvalidArgument);
  // Different files, standard output and unset options pass.
  CHECK_NOTHROW(ddl::check_distinct_files({t / "in.csv"}, {t / "out.json", "-", ""}));
  CHECK_NOTHROW(ddl::check_distinct_files({"-", ""}, {"-", t / "out.json"}));
}

TEST_CASE("check_distinct_files compares outputs that do not exist yet", "[harness][output]") {
  TempDir t;
  fs::create_directories(t.dir / "sub");
  const std::string a = t / "new.json";
  const std::string b = (t.dir / "sub" / ".." / "new.json").string();
  CHECK(message_of([&] {
          ddl::check_distinct_files({}, {a, b});
        }) == "outputs " + a + " and " + b + " are the same file: one would overwrite the other");
  CHECK_NOTHROW(ddl::check_distinct_files({}, {a, t / "other.json"}));
}

TEST_CASE("check_writable names what is wrong", "[harness][output]") {
  TempDir t;
  fs::create_directories(t.dir / "d");
  CHECK(message_of([&] { ddl::check_writable(t / "d"); }) ==
        "cannot write " + (t / "d") + ": " + (t / "d") + " is a directory");
  CHECK(message_of([&] { ddl::check_writable(t / "missing/x.csv"); }) ==
        "cannot write " + (t / "missing/x.csv") + ": directory " + (t / "missing") +
            ": No such file or directory");
  spit(t / "f", "x");
  CHECK(message_of([&] { ddl::check_writable(t / "f/x.csv"); }) ==
        "cannot write " + (t / "f/x.csv") + ": Not a directory");
  CHECK(message_of([&] { ddl::check_writable(""); }) == "cannot write '': the path is empty");
  CHECK_NOTHROW(ddl::check_writable(t / "new.csv"));
  CHECK_NOTHROW(ddl::check_writable(t / "f"));
  CHECK_NOTHROW(ddl::check_writable("-"));
  CHECK_NOTHROW(ddl::check_writable("/dev/null"));
  CHECK(entries(t.dir) == 2);  // checking created nothing
}

TEST_CASE("AtomicOutput replaces the file only on commit", "[harness][output]") {
  TempDir t;
  const std::string path = t / "trace.csv";
  spit(path, "previous\n");
  {
    ddl::AtomicOutput out(path);
    out.stream() << "half a result";
    CHECK(slurp(path) == "previous\n");  // nothing visible before commit
  }                                      // no commit: a failed run
  CHECK(slurp(path) == "previous\n");
  CHECK(entries(t.dir) == 1);  // the temporary file is gone
  {
    ddl::AtomicOutput out(path);
    out.stream() << "new\n";
    out.commit();
    CHECK(slurp(path) == "new\n");
  }
  CHECK(slurp(path) == "new\n");
  CHECK(entries(t.dir) == 1);
}

TEST_CASE("AtomicOutput creates a new file and keeps a replaced file's mode", "[harness][output]") {
  TempDir t;
  const std::string path = t / "fresh.jsonl";
  {
    ddl::AtomicOutput out(path);
    out.stream() << "{}\n";
    out.commit();
  }
  CHECK(slurp(path) == "{}\n");
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  {
    ddl::AtomicOutput out(path);
    out.stream() << "again\n";
    out.commit();
  }
  CHECK(fs::status(path).permissions() ==
        (fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read));
}

TEST_CASE("AtomicOutput writes through a symlink and into a device", "[harness][output]") {
  TempDir t;
  spit(t / "real.csv", "old");
  fs::create_symlink(t / "real.csv", t / "link.csv");
  {
    ddl::AtomicOutput out(t / "link.csv");
    out.stream() << "new";
    out.commit();
  }
  CHECK(fs::is_symlink(t / "link.csv"));  // the link stays a link, its file is replaced
  CHECK(slurp(t / "real.csv") == "new");
  ddl::AtomicOutput null("/dev/null");
  null.stream() << "discarded";
  CHECK_NOTHROW(null.commit());
}

TEST_CASE("AtomicOutput refuses a directory before any work", "[harness][output]") {
  TempDir t;
  CHECK(message_of([&] { ddl::AtomicOutput out(t.dir.string()); }) ==
        "cannot write " + t.dir.string() + ": " + t.dir.string() + " is a directory");
}

TEST_CASE("AtomicOutput commit reports a failed write", "[harness][output]") {
  if (!fs::exists("/dev/full")) return;
  ddl::AtomicOutput out("/dev/full");
  out.stream() << std::string(1 << 16, 'x');
  CHECK_THROWS_AS(out.commit(), ddl::Error);
}
