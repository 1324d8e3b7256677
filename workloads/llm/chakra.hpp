// MLCommons Chakra execution traces (ET), the per-rank graphs ASTRA-sim plays, in and out for
// ddl's step graphs (step_graph.hpp). The schema is chakra/et_def.proto (Chakra's, with Chakra's
// field numbers); a file is what Chakra's tools write: a GlobalMetadata message, then one Node
// message per node, each preceded by its length as a varint32. A layout's files are one per
// rank, PREFIX.RANK.et (chakra_files.hpp).
//
// An Op and its node: compute -> COMP_NODE (num_ops = FLOPs, tensor_size = bytes of memory
// traffic, ddl_kernel = gemm | attention | optimizer); collective -> COMM_COLL_NODE (comm_type,
// comm_size in bytes, pg_name = the group: tp, dp, ep, expert_dp or world); send, recv ->
// COMM_SEND_NODE, COMM_RECV_NODE (comm_src, comm_dst, comm_size, comm_tag); Op::after ->
// data_deps; Op::label -> the node's name. The attribute names and value kinds are those of
// Chakra's feeder (src/feeder/et_feeder_node.cpp), so ASTRA-sim reads ddl's files; every node
// also says is_cpu_op = false, since Chakra's feeder takes a node without it for a CPU op.
// The global metadata holds the version ("0.0.4", what Chakra's own tools write), ddl_rank and
// ddl_layout (layout.hpp's to_string).
//
// Reading is for playing: a node ddl cannot play, or cannot play as the file says, is refused
// with InvalidArgument naming the file, the node and what is wrong, never skipped. A node waits
// for its data_deps and its ctrl_deps alike, as in ASTRA-sim's feeder. Times (start_time_micros,
// duration_micros), inputs, outputs and attributes ddl does not know are ignored.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/llm/step_graph.hpp"

namespace ddl::llm {

// GlobalMetadata.version of the files ddl writes: the schema version Chakra's tools write.
inline constexpr std::string_view kChakraVersion = "0.0.4";

// Rank `rank`'s graph as a Chakra file: node i is ops[i]. InvalidArgument naming the op for a
// collective Chakra has no type for or ddl would not read back (reduce, gather, scatter,
// sendrecv), or a dependency on an op that does not come before it.
void write_chakra(const std::vector<Op>& ops, int rank, const std::string& layout_text,
                  std::ostream& out);

// One rank's file, read.
struct ChakraRank {
  std::vector<Op> ops;      // in the file's order; after holds indices into ops
  std::optional<int> rank;  // ddl_rank of the global metadata
  std::string layout;       // ddl_layout of the global metadata; empty when absent
  std::string file;         // the file it came from (read_chakra's `what`)
};

// Reads a Chakra file; `what` names it in errors ("trace.3.et: node 12 'x': ..."). Node ids
// may be any numbers: they become indices. Refused (InvalidArgument): a stream that is empty,
// truncated or not protobuf; a node type other than COMP_NODE, COMM_COLL_NODE, COMM_SEND_NODE
// and COMM_RECV_NODE; a comm_type other than ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER,
// ALL_TO_ALL, BROADCAST; a pg_name other than tp, dp, ep, expert_dp, world (none: world); a
// missing comm_size, comm_type, or a send's comm_dst, a receive's comm_src; a send or receive of
// another rank; an id defined twice; a dependency (data or control) on an id not defined before
// the node (ddl plays a file's nodes in order, so the file must list them in a topological order).
ChakraRank read_chakra(std::istream& in, const std::string& what);

}  // namespace ddl::llm
