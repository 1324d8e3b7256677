// What every fuzz target shares: the input as text, and the one rule of the harness. A ddl::Error
// (InvalidArgument above all) is the parser refusing bad input, the expected outcome; any other
// exception escaping (std::out_of_range, a JSON library error, ...) is a bug, and is left to
// escape so libFuzzer reports it as a crash with the input that caused it. So is a failed
// property check (require), an ASan or UBSan report, a hang (-timeout) and a huge allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "algorithms/error.hpp"

namespace ddl::fuzz {

inline std::string text(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A property that must hold for every accepted input.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "property violated: %s\n", what);
  std::abort();
}

}  // namespace ddl::fuzz

// Runs body(); a ddl::Error is a clean rejection.
#define DDL_FUZZ_ACCEPT_ERRORS(body) \
  try {                              \
    body;                            \
  } catch (const ::ddl::Error&) {    \
  }
