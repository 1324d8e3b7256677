// The collectives ddl performs, by name (nccl-tests' names accepted): apart from registry.hpp
// so that what only names a collective (plan.hpp) needs nothing else.
#pragma once

#include <span>
#include <string_view>

namespace ddl {

enum class Collective {
  allreduce,
  reduce_scatter,
  allgather,
  broadcast,
  alltoall,
  reduce,
  gather,
  scatter,
  sendrecv,
};
std::string_view to_string(Collective c);
// Every collective, in the order above.
std::span<const Collective> all_collectives();
// The collective of that name (to_string's, or nccl-tests' reducescatter); InvalidArgument
// listing the names otherwise.
Collective parse_collective(std::string_view name);

}  // namespace ddl
