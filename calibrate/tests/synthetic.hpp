// Synthetic measurements for the calibration tests: exact figures, so every expected value is
// hand-computed.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "calibrate/report.hpp"

namespace ddl::calibrate::test {

inline Spread around(double median) {
  return {median, 0.5 * median, 1.5 * median, 0.9 * median, 1.1 * median};
}

inline LocalTimes local(std::size_t bytes, double seconds) {
  return {bytes, around(seconds), around(1.25 * seconds)};
}

// One launch of 2 ranks: ping-pong 1 us + n / (10 GB/s) times `scale`, an exchange 1.5x
// that, float reduce at 10 GB/s / `scale` (result bytes), copy at 20 GB/s. With `peer_read`
// (one per size), the exchange into peer-read buffers takes that many times the exchange.
inline Measurements launch(double scale, const std::vector<double>& peer_read = {}) {
  Measurements m;
  m.ranks = 2;
  m.reps = 5;
  m.patterns = {{"bidirectional", 2, 1}};
  for (std::size_t bytes : {1024, 65536, 1 << 20}) {
    const double pp = scale * (1e-6 + static_cast<double>(bytes) / 10e9);
    m.messages.push_back({bytes, around(pp), {around(1.5 * pp)}, std::nullopt});
    if (!peer_read.empty())
      m.messages.back().bidirectional_peer_read =
          around(peer_read.at(m.messages.size() - 1) * 1.5 * pp);
  }
  m.reduce = {{"float", local(1 << 20, scale * (1 << 20) / 10e9)},
              {"double", local(1 << 20, 2e-4)}};
  m.reduce_float_by_size = {local(4096, scale * 4096 / 20e9), local(8192, scale * 8192 / 10e9)};
  m.copy = local(1 << 20, (1 << 20) / 20e9);
  return m;
}

inline std::string temp_dir() {
  char dir_template[] = "/tmp/ddl_combine_XXXXXX";
  REQUIRE(mkdtemp(dir_template) != nullptr);
  return dir_template;
}

// Writes `m`'s report (as ddlcalibrate writes it) to `path`.
inline void write_report(const Measurements& m, const std::string& path) {
  std::ofstream(path) << fit_measurements(m, 0.03, path + ".xml").report.dump(1) << "\n";
}

}  // namespace ddl::calibrate::test
