// ddl_cma_floor: how fast can a 2-rank allreduce on one node be, when it moves data the way
// `direct` does? Two processes (this one and a child) each own half of a buffer, as direct's
// ranks do, and time, piece by piece, what direct does to its half:
//   direct    per chunk: get the peer's copy into scratch, reduce it into our own, put the
//             result into the peer's buffer (allreduce_direct's loop, without its handshakes);
//   get+put   the kernel's two copies alone: get the peer's chunk into scratch and put the
//             scratch back, our own buffer untouched. Any allreduce that moves its data with
//             cross-memory attach makes these two copies (each rank must bring in the peer's
//             half and send out as much), and must read and write its own half besides;
//   get, put, reduce   each piece alone (put from scratch; reduce: our own half and scratch);
//   slots     no kernel copy at all: each rank copies its input for the peer's half into a
//             small ring of shared-memory slots, the peer reduces from there and passes the
//             result back the same way (a shared-memory transport's way: two more copies, both
//             through caches shared between cores);
//   memcpy    one process copies the whole size between two buffers: the yardstick (ddl_membw's).
// The get, put and reduce are the project's own (cross_memory_copy, host_reduce), so `direct`
// here is direct minus its two handshakes. Prints csv: variant,pages,size,chunk,ms,gbs, where ms
// is the median over -n passes of the slower process and gbs = size / time (a 2-rank
// allreduce's bus bandwidth, nccl-tests' busbw; memcpy's: bytes copied per second).
// experiments/cma_floor.sh runs it; experiments/results/cma_floor.md reads it.
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "algorithms/host_reduce.hpp"
#include "harness/arguments.hpp"
#include "harness/sizes.hpp"
#include "real/mpi/bounded_wait.hpp"
#include "real/mpi/cross_memory.hpp"
#include "real/mpi/host_pages.hpp"

namespace po = boost::program_options;

namespace {

constexpr std::size_t kSlots = 4;  // slots per ring: enough to keep both processes busy
constexpr int kWarmup = 2;

// One ring of slots from a producer to a consumer: head counts chunks written, tail chunks read.
struct Ring {
  alignas(64) std::atomic<std::uint64_t> head{0};
  alignas(64) std::atomic<std::uint64_t> tail{0};
};

// Shared between the two processes (an anonymous shared mapping made before the fork).
struct Control {
  alignas(64) std::atomic<std::uint64_t> arrived[2]{};
  std::atomic<int> failed{0};  // set by a process that gives up, so the other stops waiting
  std::uint64_t buffer[2]{};   // each process's buffer address, for the other's get and put
  int pid[2]{};
  Ring input[2];   // input[r]: the other process's input for r's half
  Ring result[2];  // result[r]: the sums of the other's half, for r
};

struct Run {
  Control* control;
  int me;
  std::size_t size, chunk;
  double timeout_s;
  std::string timeout_text;
  ddl::HostBuffer* buffer;   // this process's whole buffer
  ddl::HostBuffer* scratch;  // one chunk, or the memcpy destination on process 0
  std::byte* slots;          // 4 rings x kSlots chunks, shared
  std::uint64_t slot_passes = 0;

  int peer() const { return 1 - me; }
  std::size_t half() const { return size / 2; }
  std::byte* mine(std::size_t offset) const { return buffer->data() + offset; }
  std::uint64_t theirs(std::size_t offset) const { return control->buffer[peer()] + offset; }

  // Polls `done` (poll_until: spin, then yield) until it holds, the other process gives up, or
  // --timeout passes.
  template <typename Done>
  void wait_for(Done&& done, const char* what) const {
    ddl::poll_until(
        [&] {
          if (control->failed.load(std::memory_order_relaxed))
            throw ddl::BackendError("the other process failed (its message says why)");
          return done();
        },
        timeout_s,
        [&] {
          return std::string("the other process did not ") + what + " within " + timeout_text +
                 " s";
        },
        [] {});
  }

  void barrier(std::uint64_t k) const {
    control->arrived[me].store(k, std::memory_order_release);
    wait_for([&] { return control->arrived[peer()].load(std::memory_order_acquire) >= k; },
             "reach the same pass");
  }

  // Calls f(offset, bytes) for each chunk of the half `which` owns.
  void each_chunk(int which, const std::function<void(std::size_t, std::size_t)>& f) const {
    const std::size_t base = static_cast<std::size_t>(which) * half();
    for (std::size_t done = 0; done < half(); done += chunk)
      f(base + done, std::min(chunk, half() - done));
  }

  void get(std::size_t offset, std::size_t bytes) const {
    ddl::cross_memory_copy(ddl::CrossMemory::read, control->pid[peer()], scratch->data(),
                           theirs(offset), bytes);
  }
  // From `from`: our own buffer (direct) or the scratch (the kernel's copies alone).
  void put(std::byte* from, std::size_t offset, std::size_t bytes) const {
    ddl::cross_memory_copy(ddl::CrossMemory::write, control->pid[peer()], from, theirs(offset),
                           bytes);
  }
  void reduce(std::size_t offset, std::size_t bytes) const {
    ddl::host_reduce(mine(offset), scratch->data(), bytes / sizeof(float), ddl::DType::float32,
                     ddl::ReduceOp::sum);
  }

  std::byte* slot(int ring, std::uint64_t index) const {
    return slots + (static_cast<std::size_t>(ring) * kSlots + index % kSlots) * chunk;
  }

  // The shared-memory transport's allreduce of both halves (see the file's comment). Every
  // ring moves exactly one half's chunks per pass, so pass k's counters start at k * chunks.
  void slot_pass() {
    const std::uint64_t n = (half() + chunk - 1) / chunk, base = slot_passes++ * n;
    Ring& in_mine = control->input[me];
    Ring& in_theirs = control->input[peer()];
    Ring& out_mine = control->result[me];
    Ring& out_theirs = control->result[peer()];
    const int in_ring_mine = me, in_ring_theirs = peer(), out_ring_mine = 2 + me,
              out_ring_theirs = 2 + peer();
    const std::size_t my_half = static_cast<std::size_t>(me) * half(),
                      their_half = static_cast<std::size_t>(peer()) * half();
    auto bytes_of = [&](std::uint64_t i) { return std::min(chunk, half() - i * chunk); };
    std::uint64_t pushed = 0, reduced = 0, pulled = 0;
    // One round: each of the three moves that can go ahead does.
    wait_for(
        [&] {
          if (pushed < n && in_theirs.head.load(std::memory_order_relaxed) -
                                    in_theirs.tail.load(std::memory_order_acquire) <
                                kSlots) {
            std::memcpy(slot(in_ring_theirs, base + pushed), mine(their_half + pushed * chunk),
                        bytes_of(pushed));
            in_theirs.head.store(base + ++pushed, std::memory_order_release);
          }
          if (reduced < n && in_mine.head.load(std::memory_order_acquire) > base + reduced &&
              out_theirs.head.load(std::memory_order_relaxed) -
                      out_theirs.tail.load(std::memory_order_acquire) <
                  kSlots) {
            std::byte* own = mine(my_half + reduced * chunk);
            const std::size_t bytes = bytes_of(reduced);
            ddl::host_reduce(own, slot(in_ring_mine, base + reduced), bytes / sizeof(float),
                             ddl::DType::float32, ddl::ReduceOp::sum);
            in_mine.tail.store(base + reduced + 1, std::memory_order_release);
            std::memcpy(slot(out_ring_theirs, base + reduced), own, bytes);
            out_theirs.head.store(base + ++reduced, std::memory_order_release);
          }
          if (pulled < n && out_mine.head.load(std::memory_order_acquire) > base + pulled) {
            std::memcpy(mine(their_half + pulled * chunk), slot(out_ring_mine, base + pulled),
                        bytes_of(pulled));
            out_mine.tail.store(base + ++pulled, std::memory_order_release);
          }
          return pushed == n && reduced == n && pulled == n;
        },
        "pass its chunks through the slots");
  }

  void pass(const std::string& variant) {
    if (variant == "memcpy") {
      if (me == 0) std::memcpy(scratch->data(), buffer->data(), size);
    } else if (variant == "direct") {
      each_chunk(me, [&](std::size_t at, std::size_t bytes) {
        get(at, bytes);
        reduce(at, bytes);
        put(mine(at), at, bytes);
      });
    } else if (variant == "get+put") {
      each_chunk(me, [&](std::size_t at, std::size_t bytes) {
        get(at, bytes);
        put(scratch->data(), at, bytes);
      });
    } else if (variant == "get") {
      each_chunk(me, [&](std::size_t at, std::size_t bytes) { get(at, bytes); });
    } else if (variant == "put") {
      each_chunk(me, [&](std::size_t at, std::size_t bytes) { put(scratch->data(), at, bytes); });
    } else if (variant == "reduce") {
      each_chunk(me, [&](std::size_t at, std::size_t bytes) { reduce(at, bytes); });
    } else {
      slot_pass();
    }
  }

  // Fills the buffer with me + 1 and checks that one pass leaves 1 + 2 everywhere in both.
  void check(const std::string& variant, std::uint64_t& k) {
    auto* values = reinterpret_cast<float*>(buffer->data());
    std::fill(values, values + size / sizeof(float), static_cast<float>(me + 1));
    barrier(++k);
    pass(variant);
    barrier(++k);
    if (!std::all_of(values, values + size / sizeof(float), [](float v) { return v == 3.0f; }))
      throw ddl::BackendError(variant + ": process " + std::to_string(me) +
                              " does not hold the sum 3 everywhere after one pass");
  }
};

const std::vector<std::string> kVariants{"memcpy", "direct", "get+put", "get",
                                         "put",    "reduce", "slots"};

void run(Run& r, int iters, const char* pages) {
  std::uint64_t k = 0;
  for (const std::string& variant : kVariants) {
    if (variant == "direct" || variant == "slots") r.check(variant, k);
    std::vector<double> seconds;
    for (int it = 0; it < kWarmup + iters; ++it) {
      r.barrier(++k);
      const auto start = std::chrono::steady_clock::now();
      r.pass(variant);
      r.barrier(++k);  // the pass ends when the slower process ends it
      if (it >= kWarmup)
        seconds.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double t = seconds[seconds.size() / 2];
    if (r.me == 0)
      std::printf("%s,%s,%zu,%zu,%.3f,%.3f\n", variant.c_str(), pages, r.size, r.chunk, t * 1e3,
                  static_cast<double>(r.size) / t / 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  pid_t child = -1;
  Control* control = nullptr;
  try {
    po::options_description desc("ddl_cma_floor: the pieces of a 2-rank direct allreduce, timed");
    desc.add_options()("help,h", "this help")("size,s",
                                              po::value<std::string>()->default_value("256M"),
                                              "the allreduce's size (both halves)")(
        "segment", po::value<std::string>()->default_value("256K"),
        "bytes per get, reduce and put (direct's chunk, ddlrun --segment)")(
        "iters,n", po::value<std::string>()->default_value("10"), "timed passes per variant")(
        "pages", po::value<std::string>()->default_value("4k"), "4k or huge")(
        "timeout", po::value<std::string>()->default_value("60"),
        "seconds either process waits for the other");
    const po::variables_map vm = ddl::harness::parse_arguments(argc, argv, desc, "ddl_cma_floor");
    if (vm.count("help")) {
      std::cout << desc << "\n";
      return 0;
    }
    const std::size_t size = ddl::harness::parse_size(vm["size"].as<std::string>());
    const std::size_t chunk = ddl::harness::parse_size(vm["segment"].as<std::string>());
    const int iters = static_cast<int>(
        ddl::harness::parse_integer(vm["iters"].as<std::string>(), "iters", 1, 100000));
    const ddl::Pages pages = ddl::parse_pages(vm["pages"].as<std::string>());
    const double timeout_s =
        ddl::harness::parse_seconds(vm["timeout"].as<std::string>(), "timeout", 3600);
    if (chunk == 0 || chunk % 64 != 0)
      throw ddl::InvalidArgument("--segment must be a positive multiple of 64 bytes, got " +
                                 std::to_string(chunk));
    if (size == 0 || size % (2 * chunk) != 0)
      throw ddl::InvalidArgument("--size must be a positive multiple of 2 x --segment (" +
                                 std::to_string(2 * chunk) + "), got " + std::to_string(size));
    ddl::require_pages(pages);

    void* shared = mmap(nullptr, sizeof(Control) + 4 * kSlots * chunk, PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED)
      throw ddl::BackendError(std::string("mmap of the shared slots: ") + std::strerror(errno));
    control = new (shared) Control{};
    // Where Yama restricts ptrace to descendants, the child may still read this process.
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    const pid_t parent = getpid();
    std::fflush(stdout);
    child = fork();
    if (child < 0) throw ddl::BackendError(std::string("fork: ") + std::strerror(errno));
    const int me = child == 0 ? 1 : 0;
    if (me == 1) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the parent
      if (getppid() != parent) return 1;
    }
    // Allocated after the fork, so each process has a buffer of its own, touched by its owner.
    ddl::HostBuffer buffer(size, pages);
    ddl::HostBuffer scratch(me == 0 ? size : chunk, pages);
    control->buffer[me] = reinterpret_cast<std::uintptr_t>(buffer.data());
    control->pid[me] = static_cast<int>(getpid());
    Run r{control, me,        size,
          chunk,   timeout_s, vm["timeout"].as<std::string>(),
          &buffer, &scratch,  static_cast<std::byte*>(shared) + sizeof(Control)};
    if (me == 0) std::printf("variant,pages,size,chunk,ms,gbs\n");
    run(r, iters, ddl::to_string(pages));
    if (me == 1) return 0;
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw ddl::BackendError("the second process ended with status " + std::to_string(status));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ddl_cma_floor: " << (child == 0 ? "process 1: " : "") << e.what() << "\n";
    if (control != nullptr) control->failed.store(1);
    if (child > 0) {
      kill(child, SIGKILL);
      waitpid(child, nullptr, 0);
    }
    return 2;
  }
}
