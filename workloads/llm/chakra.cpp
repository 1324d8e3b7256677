#include "workloads/llm/chakra.hpp"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <istream>
#include <map>
#include <ostream>
#include <unordered_map>
#include <utility>

#include "algorithms/error.hpp"
#include "workloads/llm/chakra/et_def.pb.h"

namespace ddl::llm {
namespace {

namespace pb = ChakraProtoMsg;
using Attr = pb::AttributeProto;

// The collectives ddl plays, by Chakra's type (the ones ASTRA-sim plays too).
constexpr std::pair<pb::CollectiveCommType, Collective> kCollectives[] = {
    {pb::ALL_REDUCE, Collective::allreduce},
    {pb::ALL_GATHER, Collective::allgather},
    {pb::REDUCE_SCATTER, Collective::reduce_scatter},
    {pb::ALL_TO_ALL, Collective::alltoall},
    {pb::BROADCAST, Collective::broadcast}};
constexpr GroupKind kGroups[] = {GroupKind::tp, GroupKind::dp, GroupKind::ep, GroupKind::expert_dp,
                                 GroupKind::world};
constexpr std::pair<Kernel, std::string_view> kKernels[] = {
    {Kernel::gemm, "gemm"}, {Kernel::attention, "attention"}, {Kernel::optimizer, "optimizer"}};

// ddl's own attributes: Chakra has none for them.
constexpr const char* kRankAttr = "ddl_rank";
constexpr const char* kLayoutAttr = "ddl_layout";
constexpr const char* kKernelAttr = "ddl_kernel";
// FLOPs and bytes are doubles in ddl, integers in Chakra: the exact value rides beside the
// integer when the two differ, so a file reads back to the very same graph.
constexpr const char* kExactOpsAttr = "ddl_num_ops";
constexpr const char* kExactBytesAttr = "ddl_tensor_size";

std::string type_name(int type) {
  if (pb::NodeType_IsValid(type)) return pb::NodeType_Name(static_cast<pb::NodeType>(type));
  return std::to_string(type) + " (no type of Chakra's)";
}

std::string comm_type_name(std::uint64_t type) {
  if (type <= INT32_MAX && pb::CollectiveCommType_IsValid(static_cast<int>(type)))
    return pb::CollectiveCommType_Name(static_cast<pb::CollectiveCommType>(type));
  return std::to_string(type) + " (no type of Chakra's)";
}

Attr& add(google::protobuf::RepeatedPtrField<Attr>& attrs, const char* name) {
  Attr& a = *attrs.Add();
  a.set_name(name);
  return a;
}

// Chakra's integer (num_ops is an int64, tensor_size a uint64 in its feeder), and the exact
// double beside it when the integer is not exact.
void add_count(pb::Node& node, const char* name, const char* exact, double value, bool is_signed) {
  const double whole = value > 0 && std::isfinite(value) ? std::min(std::round(value), 9.2e18) : 0;
  if (is_signed)
    add(*node.mutable_attr(), name).set_int64_val(static_cast<std::int64_t>(whole));
  else
    add(*node.mutable_attr(), name).set_uint64_val(static_cast<std::uint64_t>(whole));
  if (whole != value) add(*node.mutable_attr(), exact).set_double_val(value);
}

void write_message(const google::protobuf::MessageLite& m, std::ostream& out) {
  google::protobuf::io::OstreamOutputStream stream(&out);
  if (!google::protobuf::util::SerializeDelimitedToZeroCopyStream(m, &stream) || !out)
    throw Error("cannot write the Chakra trace: the output stream failed");
}

// An integer attribute whatever integer kind its writer chose: Chakra's own tools differ (its
// generator writes comm_size as a uint64, its feeder reads an int64).
std::uint64_t whole(const Attr& a, const std::string& where) {
  std::int64_t s = 0;
  switch (a.value_case()) {
    case Attr::kUint64Val: return a.uint64_val();
    case Attr::kUint32Val: return a.uint32_val();
    case Attr::kFixed64Val: return a.fixed64_val();
    case Attr::kFixed32Val: return a.fixed32_val();
    case Attr::kInt64Val: s = a.int64_val(); break;
    case Attr::kInt32Val: s = a.int32_val(); break;
    case Attr::kSint64Val: s = a.sint64_val(); break;
    case Attr::kSint32Val: s = a.sint32_val(); break;
    case Attr::kSfixed64Val: s = a.sfixed64_val(); break;
    case Attr::kSfixed32Val: s = a.sfixed32_val(); break;
    default: throw InvalidArgument(where + a.name() + " is not an integer");
  }
  if (s < 0) throw InvalidArgument(where + a.name() + " is negative (" + std::to_string(s) + ")");
  return static_cast<std::uint64_t>(s);
}

double number(const Attr& a, const std::string& where) {
  if (a.value_case() == Attr::kDoubleVal) return a.double_val();
  if (a.value_case() == Attr::kFloatVal) return a.float_val();
  return static_cast<double>(whole(a, where));
}

const std::string& text(const Attr& a, const std::string& where) {
  if (a.value_case() != Attr::kStringVal)
    throw InvalidArgument(where + a.name() + " is not a string");
  return a.string_val();
}

int rank_value(const Attr& a, const std::string& where) {
  const std::uint64_t v = whole(a, where);
  if (v > INT32_MAX)
    throw InvalidArgument(where + a.name() + " " + std::to_string(v) + " is no rank");
  return static_cast<int>(v);
}

// A node's attributes by name (the last of a name wins, as in Chakra's feeder).
using Attrs = std::map<std::string, const Attr*, std::less<>>;
const Attr& required(const Attrs& attrs, const char* name, const std::string& where,
                     const char* why) {
  const auto it = attrs.find(name);
  if (it == attrs.end()) throw InvalidArgument(where + "no " + name + " (" + why + ")");
  return *it->second;
}
// The first of `names` the node has, or null.
const Attr* optional_attr(const Attrs& attrs, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const auto it = attrs.find(name); it != attrs.end()) return it->second;
  return nullptr;
}

Op op_of(const pb::Node& node, std::optional<int> rank, const std::string& where) {
  Attrs attrs;
  for (const Attr& a : node.attr()) attrs[a.name()] = &a;
  Op op;
  op.label = node.name();
  switch (static_cast<int>(node.type())) {
    case pb::COMP_NODE: {
      op.kind = Op::Kind::compute;
      if (const Attr* a = optional_attr(attrs, {kExactOpsAttr, "num_ops"}))
        op.flops = number(*a, where);
      if (const Attr* a = optional_attr(attrs, {kExactBytesAttr, "tensor_size"}))
        op.bytes = number(*a, where);
      if (const Attr* a = optional_attr(attrs, {kKernelAttr})) {
        const auto k = std::find_if(std::begin(kKernels), std::end(kKernels),
                                    [&](const auto& p) { return p.second == text(*a, where); });
        if (k == std::end(kKernels))
          throw InvalidArgument(where + kKernelAttr + " '" + a->string_val() +
                                "' is none of gemm, attention, optimizer");
        op.kernel = k->first;
      }
      return op;
    }
    case pb::COMM_COLL_NODE: {
      op.kind = Op::Kind::collective;
      const std::uint64_t type =
          whole(required(attrs, "comm_type", where, "which collective"), where);
      const auto c =
          std::find_if(std::begin(kCollectives), std::end(kCollectives),
                       [&](const auto& p) { return static_cast<std::uint64_t>(p.first) == type; });
      if (c == std::end(kCollectives))
        throw InvalidArgument(where + "comm_type " + comm_type_name(type) +
                              " is not a collective ddl plays (it plays ALL_REDUCE, ALL_GATHER, "
                              "REDUCE_SCATTER, ALL_TO_ALL, BROADCAST)");
      op.collective = c->second;
      op.group = GroupKind::world;  // Chakra's default process group: every rank
      if (const Attr* a = optional_attr(attrs, {"pg_name"})) {
        const auto g = std::find_if(std::begin(kGroups), std::end(kGroups),
                                    [&](GroupKind k) { return to_string(k) == text(*a, where); });
        if (g == std::end(kGroups))
          throw InvalidArgument(where + "pg_name '" + a->string_val() +
                                "' is none of ddl's groups (tp, dp, ep, expert_dp, world; "
                                "no pg_name: world)");
        op.group = *g;
      }
      break;
    }
    case pb::COMM_SEND_NODE:
    case pb::COMM_RECV_NODE: {
      const bool send = node.type() == pb::COMM_SEND_NODE;
      op.kind = send ? Op::Kind::send : Op::Kind::recv;
      const char* peer = send ? "comm_dst" : "comm_src";
      const char* self = send ? "comm_src" : "comm_dst";
      op.peer = rank_value(
          required(attrs, peer, where, send ? "the rank it goes to" : "the rank it comes from"),
          where);
      if (const Attr* a = optional_attr(attrs, {self}); a && rank && rank_value(*a, where) != *rank)
        throw InvalidArgument(where + self + " " + std::to_string(rank_value(*a, where)) +
                              " in rank " + std::to_string(*rank) + "'s file");
      break;  // comm_tag is not read: ddl matches a pair's messages in order
    }
    default:
      throw InvalidArgument(where + "type " + type_name(node.type()) +
                            " is not one ddl plays (it plays COMP_NODE, COMM_COLL_NODE, "
                            "COMM_SEND_NODE, COMM_RECV_NODE)");
  }
  op.size = whole(required(attrs, "comm_size", where, "its bytes"), where);
  return op;
}

}  // namespace

void write_chakra(const std::vector<Op>& ops, int rank, const std::string& layout_text,
                  std::ostream& out) {
  pb::GlobalMetadata meta;
  meta.set_version(std::string(kChakraVersion));
  add(*meta.mutable_attr(), kRankAttr).set_int64_val(rank);
  add(*meta.mutable_attr(), kLayoutAttr).set_string_val(layout_text);
  write_message(meta, out);
  // ASTRA-sim pairs a send with its receive by (src, dst, tag); ddl pairs a pair's messages in
  // order, so the k-th message between two ranks has tag k on both sides.
  std::map<int, int> sent, received;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const std::string where = "op " + std::to_string(i) + " '" + op.label + "': ";
    pb::Node node;
    node.set_id(i);
    node.set_name(op.label);
    for (std::size_t a : op.after) {
      if (a >= i)
        throw InvalidArgument(where + "waits for op " + std::to_string(a) +
                              ", which does not come before it");
      node.add_data_deps(a);
    }
    add(*node.mutable_attr(), "is_cpu_op").set_bool_val(false);
    switch (op.kind) {
      case Op::Kind::compute: {
        node.set_type(pb::COMP_NODE);
        add_count(node, "num_ops", kExactOpsAttr, op.flops, true);
        add_count(node, "tensor_size", kExactBytesAttr, op.bytes, false);
        const auto k = std::find_if(std::begin(kKernels), std::end(kKernels),
                                    [&](const auto& p) { return p.first == op.kernel; });
        add(*node.mutable_attr(), kKernelAttr).set_string_val(std::string(k->second));
        write_message(node, out);
        continue;
      }
      case Op::Kind::collective: {
        const auto c = std::find_if(std::begin(kCollectives), std::end(kCollectives),
                                    [&](const auto& p) { return p.second == op.collective; });
        if (c == std::end(kCollectives))
          throw InvalidArgument(where + "a " + std::string(to_string(op.collective)) +
                                ", which ddl does not write to Chakra (it reads back allreduce, "
                                "allgather, reduce_scatter, alltoall, broadcast)");
        node.set_type(pb::COMM_COLL_NODE);
        add(*node.mutable_attr(), "comm_type").set_int64_val(c->first);
        add(*node.mutable_attr(), "pg_name").set_string_val(std::string(to_string(op.group)));
        break;
      }
      case Op::Kind::send:
      case Op::Kind::recv: {
        const bool send = op.kind == Op::Kind::send;
        node.set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
        add(*node.mutable_attr(), "comm_src").set_int32_val(send ? rank : op.peer);
        add(*node.mutable_attr(), "comm_dst").set_int32_val(send ? op.peer : rank);
        add(*node.mutable_attr(), "comm_tag").set_int32_val((send ? sent : received)[op.peer]++);
        break;
      }
    }
    add(*node.mutable_attr(), "comm_size").set_int64_val(static_cast<std::int64_t>(op.size));
    write_message(node, out);
  }
  out.flush();
  if (!out) throw Error("cannot write the Chakra trace: the output stream failed");
}

ChakraRank read_chakra(std::istream& in, const std::string& what) {
  using google::protobuf::util::ParseDelimitedFromZeroCopyStream;
  ChakraRank r;
  r.file = what;
  google::protobuf::io::IstreamInputStream stream(&in);
  bool clean_eof = false;
  pb::GlobalMetadata meta;
  if (!ParseDelimitedFromZeroCopyStream(&meta, &stream, &clean_eof))
    throw InvalidArgument(what + (clean_eof ? ": empty, not a Chakra execution trace"
                                            : ": not a Chakra execution trace (its global "
                                              "metadata is truncated or not protobuf)"));
  for (const Attr& a : meta.attr()) {
    if (a.name() == kRankAttr) r.rank = rank_value(a, what + ": global metadata: ");
    if (a.name() == kLayoutAttr) r.layout = text(a, what + ": global metadata: ");
  }
  std::unordered_map<std::uint64_t, std::size_t> index;  // node id -> op
  std::uint64_t last_id = 0;
  for (;;) {
    pb::Node node;
    if (!ParseDelimitedFromZeroCopyStream(&node, &stream, &clean_eof)) {
      if (clean_eof) break;
      throw InvalidArgument(what + ": " +
                            (r.ops.empty() ? std::string("the first node")
                                           : "the node after node " + std::to_string(last_id)) +
                            " is truncated or not protobuf");
    }
    const std::string where =
        what + ": node " + std::to_string(node.id()) + " '" + node.name() + "': ";
    if (const auto it = index.find(node.id()); it != index.end())
      throw InvalidArgument(where + "id " + std::to_string(node.id()) +
                            " is defined twice (nodes " + std::to_string(it->second) + " and " +
                            std::to_string(r.ops.size()) + " of the file, from 0)");
    Op op = op_of(node, r.rank, where);
    // Both kinds of dependency hold a node back, as in ASTRA-sim's feeder (RESOLVE_DATA_DEPS and
    // RESOLVE_CTRL_DEPS); a control dependency that is also a data dependency counts once.
    for (const auto* deps : {&node.data_deps(), &node.ctrl_deps()})
      for (std::uint64_t dep : *deps) {
        const auto it = index.find(dep);
        if (it == index.end())
          throw InvalidArgument(where + "depends on node " + std::to_string(dep) +
                                ", which is not defined before it (ddl plays a file's nodes in "
                                "order, so they must come in a topological order)");
        if (deps == &node.data_deps() ||
            std::find(op.after.begin(), op.after.end(), it->second) == op.after.end())
          op.after.push_back(it->second);
      }
    index.emplace(node.id(), r.ops.size());
    last_id = node.id();
    r.ops.push_back(std::move(op));
  }
  return r;
}

}  // namespace ddl::llm
