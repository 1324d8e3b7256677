// ddl's error types. Every failure that crosses a layer is one of these; backends translate
// foreign codes (MPI, CUDA, SimGrid exceptions) into them once, at their boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace ddl {

// Base of every ddl error: catch this at the program's edge and print what().
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The caller asked for something that cannot be done (bad dims, unknown algorithm, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// The ranks' calls differ (counts, dtypes, ops, algorithms, all-to-all-v counts that do not
// match peer to peer): thrown on every rank whose own call was well-formed.
class RanksDisagree : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

// A wait did not complete in time; the message names rank, peer, tag and operation.
class Timeout : public Error {
 public:
  using Error::Error;
};

// A backend failed (MPI error code, CUDA error, SimGrid exception), already translated.
class BackendError : public Error {
 public:
  using Error::Error;
};

}  // namespace ddl

// Misuse check that stays on in release builds: algorithms are cheap next to their messages.
#define DDL_CHECK(cond, msg)                                                          \
  do {                                                                                \
    if (!(cond)) throw ::ddl::InvalidArgument(std::string("check failed: ") + (msg)); \
  } while (0)
