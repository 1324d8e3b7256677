// run_sweep_spread / run_cases_spread (sweep_mpi.hpp): each rank sends every case's row to rank 0
// as soon as its simulation has it, so rank 0 can hand the rows on in table order while the
// sweep is still running.
#include <mpi.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "algorithms/error.hpp"
#include "algorithms/registry.hpp"
#include "tools/sim_ranks/sweep_mpi.hpp"
#include "tools/sim_ranks/sweep_mpi_wait.hpp"

namespace ddl::sim {

namespace {

// One message per case: a status byte 0, the time (double), whether it has a wrong count and
// the count (std::uint64_t). A rank whose share fails sends status byte 1 and the message
// instead, and nothing after it. Messages of one sender arrive in the order sent (MPI's
// non-overtaking rule), so the n-th case message of rank r is its n-th case.
constexpr std::size_t kPackedCase = 1 + sizeof(double) + 1 + sizeof(std::uint64_t);
constexpr int kRowsTag = 1;

std::vector<char> pack(const CaseResult& r) {
  std::vector<char> out(kPackedCase, 0);
  const char has_wrong = r.wrong ? 1 : 0;
  const std::uint64_t wrong = r.wrong.value_or(0);
  std::memcpy(out.data() + 1, &r.time_s, sizeof r.time_s);
  out[1 + sizeof(double)] = has_wrong;
  std::memcpy(out.data() + 2 + sizeof(double), &wrong, sizeof wrong);
  return out;
}

void unpack(const std::vector<char>& message, CaseResult& r) {
  std::memcpy(&r.time_s, message.data() + 1, sizeof r.time_s);
  std::uint64_t wrong = 0;
  std::memcpy(&wrong, message.data() + 2 + sizeof(double), sizeof wrong);
  if (message[1 + sizeof(double)] != 0) r.wrong = static_cast<std::size_t>(wrong);
}

// Test hook, as ddlrun's DDLRUN_FAULT (real/mpi/bounded_mpi.hpp): with DDLSIM_FAULT=stop:R in the
// environment, rank R stops itself (SIGSTOP) before its share, so a test can check that the
// others end within --timeout and name it. Without the variable it does nothing.
void fault_point(int rank) {
  const char* spec = std::getenv("DDLSIM_FAULT");
  int stopped = -1;
  if (spec != nullptr && std::sscanf(spec, "stop:%d", &stopped) == 1 && stopped == rank)
    std::raise(SIGSTOP);
}

// On a rank other than 0: its messages, sent without waiting; the buffers live until finish().
class RowSender {
 public:
  explicit RowSender(const SweepRanks& ranks) : ranks_(ranks) {}
  void send(std::vector<char> message) {
    buffers_.push_back(std::move(message));
    requests_.emplace_back();
    check(MPI_Isend(buffers_.back().data(), static_cast<int>(buffers_.back().size()), MPI_CHAR, 0,
                    kRowsTag, MPI_COMM_WORLD, &requests_.back()),
          "MPI_Isend");
  }
  void finish() {
    for (MPI_Request& req : requests_)
      wait_for(req, ranks_.timeout(), ranks_.rank(), "sending its rows to rank 0");
  }

 private:
  const SweepRanks& ranks_;
  std::deque<std::vector<char>> buffers_;  // a deque: growing it leaves the others in place
  std::deque<MPI_Request> requests_;
};

// On rank 0: every case's row as it arrives, and the rows handed on in table order. Case k is
// rank k mod n's (k / n)-th.
class RowCollector {
 public:
  RowCollector(const SweepRanks& ranks, const std::vector<harness::SweepCase>& all,
               const SweepConfig& config, const CaseDone& done)
      : ranks_(ranks), n_(static_cast<std::size_t>(ranks.size())), done_(done), rows_(all.size()) {
    for (std::size_t k = 0; k < all.size(); ++k) {
      // As run_cases names them: the canonical name, whole elements.
      rows_[k].algo = find_algorithm(all[k].algo).name;
      rows_[k].bytes = all[k].bytes / dtype_size(config.type) * dtype_size(config.type);
      rows_[k].out_of_place = all[k].out_of_place;
    }
    received_.assign(n_, 0);
    errors_.resize(n_);
  }

  // Rank 0's own i-th case.
  void own(std::size_t i, const CaseResult& r) {
    rows_[i * n_].time_s = r.time_s;
    rows_[i * n_].wrong = r.wrong;
    ++received_[0];
    hand_on();
  }

  // Takes every message that has arrived from the other ranks.
  void poll() {
    for (std::size_t r = 1; r < n_; ++r) {
      while (!finished(r)) {
        int arrived = 0;
        MPI_Status status;
        check(MPI_Iprobe(static_cast<int>(r), kRowsTag, MPI_COMM_WORLD, &arrived, &status),
              "MPI_Iprobe");
        if (!arrived) break;
        int bytes = 0;
        check(MPI_Get_count(&status, MPI_CHAR, &bytes), "MPI_Get_count");
        std::vector<char> message(static_cast<std::size_t>(bytes));
        // The message has arrived: this receive completes at once.
        check(MPI_Recv(message.data(), bytes, MPI_CHAR, static_cast<int>(r), kRowsTag,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Recv");
        take(r, message);
      }
    }
    hand_on();
  }

  // Waits for the rest, bounded by the timeout, naming the ranks that sent too little.
  void finish() {
    using clock = std::chrono::steady_clock;
    const double timeout_s = ranks_.timeout();
    const auto deadline =
        clock::now() + std::chrono::duration_cast<clock::duration>(
                           std::chrono::duration<double>(timeout_s < 1e9 ? timeout_s : 1e9));
    while (true) {
      poll();
      std::string late;
      for (std::size_t r = 1; r < n_; ++r)
        if (!finished(r)) late += (late.empty() ? "" : ", ") + std::to_string(r);
      if (late.empty()) return;
      if (clock::now() >= deadline)
        throw Timeout("rank 0: no rows from rank " + late + " within " +
                      std::to_string(static_cast<long long>(timeout_s)) +
                      " s (--timeout): stopped, stuck or still simulating");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  // The first failed rank's error, in rank order.
  void rethrow_errors() const {
    for (std::size_t r = 1; r < n_; ++r)
      if (errors_[r]) throw BackendError("rank " + std::to_string(r) + ": " + *errors_[r]);
  }

  std::vector<CaseResult> rows() && { return std::move(rows_); }

 private:
  std::size_t expected(std::size_t r) const {
    return r < rows_.size() ? (rows_.size() - r + n_ - 1) / n_ : 0;
  }
  bool finished(std::size_t r) const { return errors_[r] || received_[r] == expected(r); }

  void take(std::size_t r, const std::vector<char>& message) {
    if (message.empty()) throw BackendError("rank " + std::to_string(r) + " sent an empty message");
    if (message.front() != 0) {
      errors_[r] = std::string(message.begin() + 1, message.end());
      return;
    }
    if (message.size() != kPackedCase)
      throw BackendError("rank " + std::to_string(r) + " sent " + std::to_string(message.size()) +
                         " bytes for a row of " + std::to_string(kPackedCase));
    unpack(message, rows_[received_[r] * n_ + r]);
    ++received_[r];
  }

  // Every row from the first not handed on whose rank has sent it.
  void hand_on() {
    while (next_ < rows_.size() && received_[next_ % n_] > next_ / n_) {
      if (done_) done_(next_, rows_[next_]);
      ++next_;
    }
  }

  const SweepRanks& ranks_;
  std::size_t n_;
  const CaseDone& done_;
  std::vector<CaseResult> rows_;
  std::vector<std::size_t> received_;  // per rank: rows in
  std::vector<std::optional<std::string>> errors_;
  std::size_t next_ = 0;  // the first row not handed on
};

}  // namespace

std::vector<CaseResult> run_sweep_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config, const SweepProgress& progress,
                                         const CaseDone& done) {
  return run_cases_spread(ranks, platform, config, config.each(), progress, done);
}

std::vector<CaseResult> run_cases_spread(const SweepRanks& ranks, const Platform& platform,
                                         const SweepConfig& config,
                                         const std::vector<harness::SweepCase>& all,
                                         const SweepProgress& progress, const CaseDone& done) {
  if (ranks.size() == 1) return run_cases(platform, config, all, progress, nullptr, done);
  const auto n = static_cast<std::size_t>(ranks.size());
  const auto me = static_cast<std::size_t>(ranks.rank());
  std::vector<harness::SweepCase> mine;
  for (std::size_t k = me; k < all.size(); k += n) mine.push_back(all[k]);
  fault_point(ranks.rank());

  if (!ranks.root()) {
    RowSender sender(ranks);
    std::exception_ptr failure;
    try {
      if (!mine.empty())
        run_cases(platform, config, mine, {}, nullptr,
                  [&](std::size_t, const CaseResult& r) { sender.send(pack(r)); });
    } catch (const std::exception& e) {
      failure = std::current_exception();
      const std::string message = e.what();
      std::vector<char> text(1, 1);
      text.insert(text.end(), message.begin(), message.end());
      sender.send(std::move(text));
    }
    sender.finish();
    if (failure) std::rethrow_exception(failure);
    return {};
  }
  // Rank 0 takes every rank's rows even when its own share failed, so no rank is left sending.
  RowCollector collector(ranks, all, config, done);
  // Called between rank 0's cases by its actors (one thread: SimGrid's actors are contexts of
  // the main thread, so MPI sees one caller).
  const SweepProgress between_cases = [&](std::size_t finished, std::size_t total,
                                          const std::string& algo, std::size_t bytes) {
    collector.poll();
    if (progress) progress(finished, total, algo, bytes);
  };
  std::exception_ptr failure;
  try {
    if (!mine.empty())
      run_cases(platform, config, mine, between_cases, nullptr,
                [&](std::size_t i, const CaseResult& r) { collector.own(i, r); });
  } catch (const std::exception&) {
    failure = std::current_exception();
  }
  collector.finish();
  if (failure) std::rethrow_exception(failure);
  collector.rethrow_errors();
  return std::move(collector).rows();
}

}  // namespace ddl::sim
