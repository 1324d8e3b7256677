#include "harness/temp_cleanup.hpp"

#include <limits.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>

namespace ddl {

namespace {

// Temporary files a signal must not leave behind. The handler may run at any point, so it only
// reads slots that were filled before being marked used, and unlinks (async-signal-safe).
struct TempSlot {
  std::atomic<bool> claimed{false};  // taken by an AtomicOutput
  std::atomic<bool> used{false};     // path is complete: the handler may remove it
  char path[PATH_MAX] = {};
};
TempSlot temp_slots[32];
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void remove_temps() {
  for (TempSlot& slot : temp_slots)
    if (slot.used.load(std::memory_order_acquire)) ::unlink(slot.path);
}

extern "C" void remove_temps_and_end(int sig) {
  remove_temps();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// Signals only where the action is the default (the signal would end the process): a program
// with its own handler (Python's SIGINT, an MPI runtime's) decides itself. Looked at for every
// file, so a handler reset to the default since (a forked child's) is covered too. A handler that
// ends the process with exit() skips the destructors: atexit covers that path. (SimGrid's own
// SIGINT handler is one, and it may abort inside exit(): the simulator keeps it from being set,
// sim/platform_engine.cpp.)
void install_cleanup_handlers() {
  static std::atomic<bool> at_exit{false};
  if (!at_exit.exchange(true)) std::atexit(remove_temps);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 ||
        old.sa_handler != SIG_DFL)
      continue;
    struct sigaction act {};
    act.sa_handler = remove_temps_and_end;
    sigemptyset(&act.sa_mask);
    ::sigaction(sig, &act, nullptr);
  }
}

}  // namespace

int register_temp(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  install_cleanup_handlers();
  for (std::size_t i = 0; i < std::size(temp_slots); ++i) {
    TempSlot& slot = temp_slots[i];
    if (slot.claimed.exchange(true)) continue;
    std::memcpy(slot.path, path.c_str(), path.size() + 1);
    slot.used.store(true, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void release_temp(int slot) {
  if (slot < 0) return;
  temp_slots[slot].used.store(false, std::memory_order_release);
  temp_slots[slot].claimed.store(false, std::memory_order_release);
}

}  // namespace ddl
