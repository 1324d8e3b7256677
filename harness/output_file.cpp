#include "harness/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "algorithms/error.hpp"
#include "harness/temp_cleanup.hpp"

namespace ddl {
namespace {

namespace fs = std::filesystem;

// What makes two paths the same file: device and inode when it exists, else where it would be.
struct FileId {
  bool exists = false;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string where;

  bool operator==(const FileId& o) const {
    if (exists != o.exists) return false;
    return exists ? (dev == o.dev && ino == o.ino) : where == o.where;
  }
};

FileId file_id(const std::string& path) {
  FileId id;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.exists = true;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  std::error_code ec;  // weakly_canonical resolves the part that exists, normalises the rest
  fs::path p = fs::weakly_canonical(fs::absolute(path, ec), ec);
  id.where = ec ? fs::absolute(path).lexically_normal().string() : p.string();
  return id;
}

bool skipped(const std::string& path) {
  return path.empty() || path == "-";
}

[[noreturn]] void cannot_write(const std::string& path, const std::string& reason) {
  throw InvalidArgument("cannot write " + path + ": " + reason);
}

std::string parent_dir(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  return parent.empty() ? std::string(".") : parent.string();
}

// The file's mode when it exists, so replacing a file keeps its permissions.
std::optional<mode_t> existing_mode(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return st.st_mode & 07777;
}

const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "it is a directory";
  if (S_ISFIFO(mode)) return "it is a FIFO (a pipe), not a regular file";
  if (S_ISCHR(mode)) return "it is a character device, not a regular file";
  if (S_ISBLK(mode)) return "it is a block device, not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  return "it is not a regular file";
}

}  // namespace

void check_distinct_files(const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs) {
  std::vector<std::pair<std::string, FileId>> ins;
  for (const auto& in : inputs)
    if (!skipped(in)) ins.emplace_back(in, file_id(in));
  std::vector<std::pair<std::string, FileId>> outs;
  for (const auto& out : outputs) {
    if (skipped(out)) continue;
    FileId id = file_id(out);
    for (const auto& [in, in_id] : ins)
      if (id == in_id)
        throw InvalidArgument("output " + out + " is the same file as input " + in +
                              ": writing it would destroy the input");
    for (const auto& [other, other_id] : outs)
      if (id == other_id)
        throw InvalidArgument("outputs " + other + " and " + out +
                              " are the same file: one would overwrite the other");
    outs.emplace_back(out, id);
  }
}

void check_writable(const std::string& path) {
  if (path == "-") return;
  if (path.empty()) cannot_write("''", "the path is empty");
  if (path.back() == '/') cannot_write(path, "the path names a directory");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) cannot_write(path, path + " is a directory");
    if (::access(path.c_str(), W_OK) != 0) cannot_write(path, std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return;  // written in place: the directory does not matter
  } else if (errno != ENOENT) {
    cannot_write(path, std::strerror(errno));
  }
  // A new file, or a regular file replaced by rename: the directory must take a new entry.
  const std::string dir = parent_dir(path);
  struct stat dst {};
  if (::stat(dir.c_str(), &dst) != 0)
    cannot_write(path, "directory " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(dst.st_mode)) cannot_write(path, dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    cannot_write(path, "directory " + dir + ": " + std::strerror(errno));
}

void check_readable(const std::string& path, const std::string& what, std::uintmax_t max_bytes) {
  const std::string prefix = "cannot read " + what + " '" + path + "': ";
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw InvalidArgument(prefix + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw InvalidArgument(prefix + file_kind(st.st_mode));
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    throw InvalidArgument(prefix + "it holds " + std::to_string(st.st_size) +
                          " bytes, more than the " + std::to_string(max_bytes) +
                          " accepted for a " + what);
  if (::access(path.c_str(), R_OK) != 0) throw InvalidArgument(prefix + std::strerror(errno));
}

void check_stdout_written(const std::ostream& out) {
  if (&out == &std::cout && (!std::cout || std::ferror(stdout)))
    throw Error(std::string("cannot write standard output: ") + std::strerror(errno));
}

void finish_stdout() {
  std::cout.flush();
  const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
  if (!failed) return;
  // The write that failed may have been an earlier one, its errno still set; errno is only
  // trusted when it is one a write gives.
  const int err = errno;
  const bool from_write =
      err == ENOSPC || err == EDQUOT || err == EFBIG || err == EIO || err == EPIPE || err == EBADF;
  throw Error(std::string("cannot write standard output: ") +
              (from_write ? std::strerror(err) : "the write failed"));
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  check_writable(path_);
  std::error_code ec;
  const fs::path resolved = fs::canonical(path_, ec);  // follows symlinks when it exists
  target_ = ec ? path_ : resolved.string();
  struct stat st {};
  const bool direct = path_ == "-" || (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode));
  if (direct) {
    out_.open(path_ == "-" ? "/dev/stdout" : target_, std::ios::out | std::ios::trunc);
    if (!out_) cannot_write(path_, std::strerror(errno));
    return;
  }
  // O_EXCL under a name unique to this process: never reuses someone else's file. Mode 0666
  // lets the umask decide, as for a file the stream would create itself.
  static std::atomic<unsigned> counter{0};
  const fs::path t(target_);
  std::string name = ".";  // hidden, so a listing during the run shows only finished files
  name += t.filename().string();
  name += ".tmp." + std::to_string(::getpid()) + ".";
  const std::string stem = (t.parent_path() / name).string();
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    temp_ = stem + std::to_string(counter++);
    fd = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    const std::string reason = std::strerror(errno);
    temp_.clear();
    cannot_write(path_, "cannot create a temporary file beside it: " + reason);
  }
  if (auto mode = existing_mode(target_)) ::fchmod(fd, *mode);
  ::close(fd);
  signal_slot_ = register_temp(temp_);
  out_.open(temp_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) {
    const std::string reason = std::strerror(errno);
    ::unlink(temp_.c_str());
    release_temp(signal_slot_);
    temp_.clear();
    cannot_write(path_, reason);
  }
}

void AtomicOutput::commit() {
  if (committed_) return;
  out_.flush();
  const bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    const int err = errno;
    throw Error("cannot write " + path_ + ": " +
                (err != 0 ? std::strerror(err) : "the write failed") +
                (temp_.empty() ? "" : " (the previous file is left as it was)"));
  }
  if (!temp_.empty() && std::rename(temp_.c_str(), target_.c_str()) != 0)
    throw Error("cannot write " + path_ + ": rename: " + std::strerror(errno) +
                " (the previous file is left as it was)");
  release_temp(signal_slot_);
  committed_ = true;
}

AtomicOutput::~AtomicOutput() {
  if (committed_ || temp_.empty()) return;
  out_.close();
  ::unlink(temp_.c_str());
  release_temp(signal_slot_);
}

ResultOutput::ResultOutput(const std::optional<std::string>& path) {
  if (path) file_.emplace(*path);
}

std::ostream& ResultOutput::stream() {
  return file_ ? file_->stream() : std::cout;
}

void ResultOutput::commit() {
  if (file_)
    file_->commit();
  else
    finish_stdout();
}

}  // namespace ddl
