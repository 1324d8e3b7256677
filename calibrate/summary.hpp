// The human summary ddlcalibrate prints (tool side: it spells sizes as the flags do).
#pragma once

#include <string>

#include "calibrate/report.hpp"

namespace ddl::calibrate {

// Per size the medians beside the fit and the model, the size ranges, capacities and local
// throughputs; with several nodes, the same per class between nodes and the links' figures.
std::string summary_text(const Measurements& m, const Calibration& c,
                         const std::string& report_file);

}  // namespace ddl::calibrate
