#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
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

TEST_CASE("check_readable takes regular files only, up to the role's limit", "[harness][output]") {
  TempDir t;
  spit(t / "ok.csv", "0123456789");
  CHECK_NOTHROW(ddl::check_readable(t / "ok.csv", "trace file", 10));
  CHECK(message_of([&] { ddl::check_readable(t / "ok.csv", "trace file", 9); }) ==
        "cannot read trace file '" + (t / "ok.csv") +
            "': it holds 10 bytes, more than the 9 accepted for a trace file");
  CHECK(message_of([&] { ddl::check_readable(t.dir.string(), "trace file", 1 << 20); }) ==
        "cannot read trace file '" + t.dir.string() + "': it is a directory");
  REQUIRE(::mkfifo((t / "fifo").c_str(), 0600) == 0);
  CHECK(message_of([&] { ddl::check_readable(t / "fifo", "workload file", 1 << 20); }) ==
        "cannot read workload file '" + (t / "fifo") +
            "': it is a FIFO (a pipe), not a regular file");
  fs::create_symlink("/dev/zero", t / "zero");  // a link to an endless device
  CHECK(message_of([&] { ddl::check_readable(t / "zero", "plan file", 1 << 20); }) ==
        "cannot read plan file '" + (t / "zero") +
            "': it is a character device, not a regular file");
  CHECK(message_of([&] { ddl::check_readable(t / "none", "plan file", 1 << 20); }) ==
        "cannot read plan file '" + (t / "none") + "': No such file or directory");
}

TEST_CASE("AtomicOutput leaves no temporary file when a signal or exit() ends the process",
          "[harness][output]") {
  TempDir t;
  spit(t / "out.csv", "old");
  // In a child: open, write, then end the way a killed or interrupted run ends.
  const auto end_child = [&](const std::function<void()>& ending) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, SIG_DFL);  // Catch's are gone
      ddl::AtomicOutput out(t / "out.csv");
      out.stream() << "new" << std::flush;
      ending();
      ::_exit(0);  // not reached
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  };
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    INFO("signal " << sig);
    const int status = end_child([sig] { ::raise(sig); });
    CHECK(WIFSIGNALED(status));
    CHECK(WTERMSIG(status) == sig);  // the signal still ends the process, as by default
    CHECK(entries(t.dir) == 1);      // out.csv only: the temporary file is gone
    CHECK(slurp(t / "out.csv") == "old");
  }
  const int status = end_child([] { std::exit(3); });  // SimGrid's SIGINT handler exits so
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
  CHECK(entries(t.dir) == 1);
  CHECK(slurp(t / "out.csv") == "old");
}
