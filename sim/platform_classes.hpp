// Places and link classes of a platform's GPU hosts (ddl_node, ddl_leaf) and the per-class
// message factors, for load_platform (sim/platform.hpp documents the properties).
#pragma once

#include <string>

#include "sim/platform.hpp"

namespace simgrid::kernel::resource {
class NetworkModelIntf;
}  // namespace simgrid::kernel::resource

namespace ddl::sim {

// The root zone's factor property `property`, parsed, or an empty table when absent; malformed:
// InvalidArgument naming the file and the property.
FactorTable read_root_factors(simgrid::s4u::Engine& engine, const std::string& file,
                              const char* property, bool allow_zero);

// The GPU hosts' ddl_node / ddl_leaf into p.places and the per-class factor tables. True when
// the hosts carry places; then every class's tables are resolved (its own, else the class-less
// ones). InvalidArgument as load_platform says.
bool read_places_and_class_factors(simgrid::s4u::Engine& engine, Platform& p);

// The factor callbacks of a platform with places: a message takes its class's tables, the class
// from its hosts' places. Installed only for the kinds (latency, bandwidth) some class has.
void install_class_factor_callbacks(simgrid::kernel::resource::NetworkModelIntf& model,
                                    const Platform& p);

}  // namespace ddl::sim
