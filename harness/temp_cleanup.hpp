// Temporary files that a signal or exit() must not leave behind (AtomicOutput's, output_file.hpp):
// a fixed table the handler can read at any point; SIGINT, SIGTERM and SIGHUP remove them where
// their action was the default, exit() through atexit.
#pragma once

#include <string>

namespace ddl {

// A slot for `path`, removed by a signal or exit() until released; -1 when all are taken (the
// file is then only removed on a normal exit).
int register_temp(const std::string& path);
void release_temp(int slot);

}  // namespace ddl
