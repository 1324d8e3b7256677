// Every simulation runs in a process of its own (one SimGrid Engine per process), so the
// tests drive ddlsim and sim_probe as child processes and check what they print.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace ddl::test {

struct ChildResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `command` through the shell; stdout and stderr are captured separately.
inline ChildResult run_child(const std::string& command) {
  char err_path[] = "/tmp/ddl_sim_test_XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  ChildResult r;
  FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream err(err_path);
  r.err.assign(std::istreambuf_iterator<char>(err), std::istreambuf_iterator<char>());
  std::remove(err_path);
  return r;
}

inline std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) parts.push_back(part);
  if (!text.empty() && text.back() == sep && sep != '\n') parts.emplace_back();
  return parts;
}

// ddlsim --format csv output as one map per row, keyed by the header's column names; the '#'
// lines around them (the run's metadata and notes) are skipped, as pandas' comment='#' does.
inline std::vector<std::map<std::string, std::string>> parse_csv(const std::string& text) {
  std::vector<std::string> lines;
  for (const std::string& l : split(text, '\n'))
    if (l.rfind('#', 0) != 0) lines.push_back(l);
  std::vector<std::map<std::string, std::string>> rows;
  if (lines.empty()) return rows;
  const std::vector<std::string> header = split(lines[0], ',');
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> cells = split(lines[i], ',');
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < header.size() && c < cells.size(); ++c) row[header[c]] = cells[c];
    rows.push_back(row);
  }
  return rows;
}

inline std::string ddlsim() {
  return DDL_DDLSIM;
}
inline std::string probe() {
  return DDL_SIM_PROBE;
}
inline std::string fixture(const std::string& name) {
  return std::string(DDL_SIM_FIXTURES) + "/" + name;
}
inline std::string platform(const std::string& name) {
  return std::string(DDL_PLATFORMS) + "/" + name;
}

// A bad input: non-zero exit, nothing on stdout, exactly one line on stderr naming the problem.
inline void check_rejected_command(const std::string& command, const std::string& names) {
  const ChildResult r = run_child(command);
  INFO(command << "\nstderr: " << r.err);
  CHECK(r.exit_code != 0);
  CHECK(r.out.empty());
  CHECK(split(r.err, '\n').size() == 1);
  CHECK(r.err.find(names) != std::string::npos);
}

}  // namespace ddl::test
