// Chakra execution traces (workloads/llm/chakra.hpp): every rank's step graph of several layouts
// written and read back to the very same ops; files made by hand with Chakra's generated classes,
// as Chakra's tools write them, read or refused by name; a layout's files found on disk.
#include <google/protobuf/util/delimited_message_util.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "algorithms/error.hpp"
#include "workloads/llm/chakra.hpp"
#include "workloads/llm/chakra/et_def.pb.h"
#include "workloads/llm/chakra_files.hpp"

using namespace ddl;
using namespace ddl::llm;
// Catch2 2.13 (Debian): Catch::Contains is what Catch2 3 calls ContainsSubstring.
using Catch::Contains;
namespace pb = ChakraProtoMsg;

namespace {

Transformer shipped(const std::string& name) {
  return read_transformer(std::string(DDL_LLM_MODELS) + "/" + name + ".json");
}

std::string chakra_text(const std::vector<Op>& ops, int rank, const std::string& layout) {
  std::ostringstream out;
  write_chakra(ops, rank, layout, out);
  return out.str();
}

ChakraRank read_text(const std::string& text) {
  std::istringstream in(text);
  return read_chakra(in, "t.0.et");
}

// Every field of every op equal, the first difference named.
void require_same(const std::vector<Op>& got, const std::vector<Op>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("op " << i << " '" << want[i].label << "'");
    CHECK(got[i].kind == want[i].kind);
    CHECK(got[i].kernel == want[i].kernel);
    CHECK(got[i].label == want[i].label);
    CHECK(got[i].flops == want[i].flops);
    CHECK(got[i].bytes == want[i].bytes);
    CHECK(got[i].group == want[i].group);
    CHECK(got[i].collective == want[i].collective);
    CHECK(got[i].size == want[i].size);
    CHECK(got[i].peer == want[i].peer);
    CHECK(got[i].after == want[i].after);
  }
}

// A file as Chakra's tools write one: metadata, then each node with its length before it.
struct Trace {
  std::ostringstream out;
  Trace() {
    pb::GlobalMetadata meta;
    meta.set_version("0.0.4");
    google::protobuf::util::SerializeDelimitedToOstream(meta, &out);
  }
  Trace& operator<<(const pb::Node& node) {
    google::protobuf::util::SerializeDelimitedToOstream(node, &out);
    return *this;
  }
  ChakraRank read() const { return read_text(out.str()); }
};

pb::Node node(std::uint64_t id, const std::string& name, pb::NodeType type,
              std::vector<std::uint64_t> deps = {}) {
  pb::Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  for (std::uint64_t d : deps) n.add_data_deps(d);
  return n;
}
pb::AttributeProto& attr(pb::Node& n, const std::string& name) {
  pb::AttributeProto& a = *n.add_attr();
  a.set_name(name);
  return a;
}
pb::Node allreduce(std::uint64_t id, const std::string& name,
                   std::vector<std::uint64_t> deps = {}) {
  pb::Node n = node(id, name, pb::COMM_COLL_NODE, deps);
  attr(n, "comm_type").set_int64_val(pb::ALL_REDUCE);
  attr(n, "comm_size").set_uint64_val(1024);  // as Chakra's generator writes it
  return n;
}

}  // namespace

TEST_CASE("chakra: every rank's step graph reads back equal, field by field", "[llm][chakra]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"small_gpt", "dp=1"},
      {"small_gpt", "tp=2"},
      {"small_gpt", "tp=2,sp"},
      {"small_gpt", "pp=2,mb=3"},
      {"small_gpt", "tp=2,pp=2,dp=2,mb=3,zero=1,sp"},
      {"small_gpt", "dp=2,zero=3,recompute"},
      {"mixtral_8x7b", "tp=2,dp=4,ep=2,mb=2"},
      {"mixtral_8x7b", "pp=4,dp=2,mb=4,zero=1"},
  };
  for (const auto& [model, text] : cases) {
    const Transformer m = shipped(model);
    const ParallelLayout l = parse_layout(text);
    check_layout(l, m, l.gpus());
    for (int rank = 0; rank < l.gpus(); ++rank) {
      INFO(model << " " << text << " rank " << rank);
      const std::vector<Op> ops = step_graph(m, l, rank);
      const ChakraRank back = read_text(chakra_text(ops, rank, l.to_string()));
      CHECK(back.rank == rank);
      CHECK(back.layout == l.to_string());
      require_same(back.ops, ops);
    }
  }
}

TEST_CASE("chakra: ddl's nodes carry Chakra's attribute names and kinds", "[llm][chakra]") {
  std::vector<Op> ops(3);
  ops[0].label = "F0 L0 attention";
  ops[0].kernel = Kernel::attention;
  ops[0].flops = 1e9;
  ops[0].bytes = 2.5;  // not an integer: the exact value rides beside Chakra's
  ops[1].kind = Op::Kind::collective;
  ops[1].label = "F0 L0 tp allreduce";
  ops[1].group = GroupKind::tp;
  ops[1].size = 4096;
  ops[1].after = {0};
  ops[2].kind = Op::Kind::send;
  ops[2].label = "F0 send";
  ops[2].peer = 3;
  ops[2].size = 64;
  ops[2].after = {0, 1};
  std::istringstream in(chakra_text(ops, 1, "tp=2"));
  google::protobuf::io::IstreamInputStream stream(&in);
  pb::GlobalMetadata meta;
  REQUIRE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&meta, &stream, nullptr));
  CHECK(meta.version() == "0.0.4");
  std::vector<pb::Node> nodes(3);
  for (pb::Node& n : nodes)
    REQUIRE(google::protobuf::util::ParseDelimitedFromZeroCopyStream(&n, &stream, nullptr));
  auto find = [](const pb::Node& n, const std::string& name) {
    for (const pb::AttributeProto& a : n.attr())
      if (a.name() == name) return a;
    FAIL("node " << n.id() << " has no " << name);
    return pb::AttributeProto();
  };
  CHECK(nodes[0].type() == pb::COMP_NODE);
  CHECK(find(nodes[0], "num_ops").int64_val() == 1000000000);
  CHECK(find(nodes[0], "tensor_size").uint64_val() == 3);
  CHECK(find(nodes[0], "ddl_tensor_size").double_val() == 2.5);
  CHECK(find(nodes[0], "ddl_kernel").string_val() == "attention");
  CHECK(find(nodes[0], "is_cpu_op").bool_val() == false);
  CHECK(nodes[1].type() == pb::COMM_COLL_NODE);
  CHECK(find(nodes[1], "comm_type").int64_val() == pb::ALL_REDUCE);
  CHECK(find(nodes[1], "comm_size").int64_val() == 4096);
  CHECK(find(nodes[1], "pg_name").string_val() == "tp");
  CHECK(std::vector<std::uint64_t>(nodes[1].data_deps().begin(), nodes[1].data_deps().end()) ==
        std::vector<std::uint64_t>{0});
  CHECK(nodes[2].type() == pb::COMM_SEND_NODE);
  CHECK(find(nodes[2], "comm_src").int32_val() == 1);
  CHECK(find(nodes[2], "comm_dst").int32_val() == 3);
  CHECK(find(nodes[2], "comm_tag").int32_val() == 0);
  CHECK(nodes[2].name() == "F0 send");
}

TEST_CASE("chakra: node ids are any numbers, any integer kind is read", "[llm][chakra]") {
  Trace t;
  pb::Node comp = node(100, "gemm", pb::COMP_NODE);
  attr(comp, "num_ops").set_uint64_val(7);
  attr(comp, "duration_micros_ignored").set_string_val("x");
  t << comp << allreduce(7, "ar", {100});
  pb::Node recv = node(42, "recv", pb::COMM_RECV_NODE, {100, 7});
  attr(recv, "comm_src").set_uint32_val(5);
  attr(recv, "comm_size").set_int32_val(8);
  recv.add_ctrl_deps(7);  // counted once
  t << recv;
  pb::Node after = node(3, "after", pb::COMP_NODE, {100});
  after.add_ctrl_deps(42);  // a control dependency holds a node back too
  t << after;
  const ChakraRank r = t.read();
  CHECK(!r.rank);
  CHECK(r.layout.empty());
  REQUIRE(r.ops.size() == 4);
  CHECK(r.ops[0].flops == 7);
  CHECK(r.ops[0].kernel == Kernel::gemm);
  CHECK(r.ops[1].group == GroupKind::world);  // no pg_name: every rank
  CHECK(r.ops[1].after == std::vector<std::size_t>{0});
  CHECK(r.ops[2].kind == Op::Kind::recv);
  CHECK(r.ops[2].peer == 5);
  CHECK(r.ops[2].size == 8);
  CHECK(r.ops[2].after == std::vector<std::size_t>{0, 1});
  CHECK(r.ops[3].after == std::vector<std::size_t>{0, 2});
}

TEST_CASE("chakra: what ddl cannot play is refused by name", "[llm][chakra]") {
  SECTION("node types") {
    for (auto type : {pb::MEM_LOAD_NODE, pb::MEM_STORE_NODE, pb::METADATA_NODE, pb::INVALID_NODE,
                      pb::STORAGE_NODE}) {
      Trace t;
      t << node(12, "x", type);
      REQUIRE_THROWS_WITH(t.read(), Contains("t.0.et: node 12 'x': type " +
                                             pb::NodeType_Name(type) + " is not one ddl plays"));
    }
    Trace t;
    t << node(3, "y", static_cast<pb::NodeType>(77));
    REQUIRE_THROWS_WITH(t.read(), Contains("node 3 'y': type 77 (no type of Chakra's)"));
  }
  SECTION("collective types") {
    for (auto type : {pb::REDUCE, pb::GATHER, pb::SCATTER, pb::REDUCE_SCATTER_BLOCK, pb::BARRIER}) {
      Trace t;
      pb::Node n = node(0, "c", pb::COMM_COLL_NODE);
      attr(n, "comm_type").set_int64_val(type);
      attr(n, "comm_size").set_int64_val(8);
      t << n;
      REQUIRE_THROWS_WITH(t.read(),
                          Contains("node 0 'c': comm_type " + pb::CollectiveCommType_Name(type) +
                                   " is not a collective ddl plays"));
    }
  }
  SECTION("a dependency not defined before the node") {
    Trace t;
    t << allreduce(1, "a", {2}) << allreduce(2, "b");
    REQUIRE_THROWS_WITH(t.read(), Contains("t.0.et: node 1 'a': depends on node 2, which "
                                           "is not defined before it"));
    REQUIRE_THROWS_WITH(t.read(), Contains("topological order"));
    Trace u;
    pb::Node n = allreduce(1, "a");
    n.add_ctrl_deps(1);
    u << n;
    REQUIRE_THROWS_WITH(u.read(), Contains("node 1 'a': depends on node 1, which is not defined"));
  }
  SECTION("an id defined twice") {
    Trace t;
    t << allreduce(5, "a") << allreduce(5, "b");
    REQUIRE_THROWS_WITH(t.read(), Contains("node 5 'b': id 5 is defined twice (nodes 0 and 1"));
  }
  SECTION("missing comm_size, comm_type, peers") {
    Trace t;
    pb::Node n = node(4, "c", pb::COMM_COLL_NODE);
    attr(n, "comm_type").set_int64_val(pb::ALL_GATHER);
    t << n;
    REQUIRE_THROWS_WITH(t.read(), Contains("node 4 'c': no comm_size"));
    Trace u;
    u << node(4, "c", pb::COMM_COLL_NODE);
    REQUIRE_THROWS_WITH(u.read(), Contains("node 4 'c': no comm_type"));
    Trace v;
    pb::Node s = node(6, "s", pb::COMM_SEND_NODE);
    attr(s, "comm_size").set_int64_val(8);
    v << s;
    REQUIRE_THROWS_WITH(v.read(), Contains("node 6 's': no comm_dst"));
  }
  SECTION("a process group that is none of ddl's") {
    Trace t;
    pb::Node n = allreduce(0, "c");
    attr(n, "pg_name").set_string_val("0");
    t << n;
    REQUIRE_THROWS_WITH(t.read(), Contains("node 0 'c': pg_name '0' is none of ddl's"));
  }
  SECTION("a send of another rank") {
    std::vector<Op> ops(1);
    ops[0].kind = Op::Kind::send;
    ops[0].peer = 1;
    std::string text = chakra_text(ops, 0, "");
    std::istringstream in(text);
    ChakraRank r = read_chakra(in, "f");
    CHECK(r.ops[0].peer == 1);
    pb::GlobalMetadata meta;
    pb::AttributeProto& rank = *meta.add_attr();
    rank.set_name("ddl_rank");
    rank.set_int64_val(2);
    std::ostringstream out;
    google::protobuf::util::SerializeDelimitedToOstream(meta, &out);
    pb::Node s = node(0, "s", pb::COMM_SEND_NODE);
    attr(s, "comm_src").set_int32_val(0);
    attr(s, "comm_dst").set_int32_val(1);
    attr(s, "comm_size").set_int32_val(1);
    google::protobuf::util::SerializeDelimitedToOstream(s, &out);
    REQUIRE_THROWS_WITH(read_text(out.str()), Contains("node 0 's': comm_src 0 in rank 2's file"));
  }
  SECTION("empty, truncated, not protobuf") {
    REQUIRE_THROWS_WITH(read_text(""), "t.0.et: empty, not a Chakra execution trace");
    REQUIRE_THROWS_WITH(read_text("step,flops\n1,2\n"),
                        Contains("t.0.et: not a Chakra execution trace"));
    Trace t;
    t << allreduce(9, "a") << allreduce(10, "b");
    const std::string whole = t.out.str();
    REQUIRE_THROWS_WITH(read_text(whole.substr(0, whole.size() - 3)),
                        "t.0.et: the node after node 9 is truncated or not protobuf");
  }
}

TEST_CASE("chakra: a layout's files found by prefix, by folder, or one file", "[llm][chakra]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("ddl_chakra_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Transformer m = shipped("small_gpt");
  const ParallelLayout l = parse_layout("tp=2,pp=2,mb=2");
  const std::string prefix = (dir / "step").string();
  for (int rank = 0; rank < l.gpus(); ++rank) {
    std::ofstream f(chakra_file(prefix, rank), std::ios::binary);
    write_chakra(step_graph(m, l, rank), rank, l.to_string(), f);
  }
  CHECK(chakra_file(prefix, 3) == prefix + ".3.et");
  for (const std::string& path : {prefix, dir.string()}) {
    const std::vector<ChakraRank> ranks = read_chakra_ranks(path);
    REQUIRE(ranks.size() == 4);
    for (int rank = 0; rank < 4; ++rank) {
      CHECK(ranks[rank].rank == rank);
      require_same(ranks[rank].ops, step_graph(m, l, rank));
    }
  }
  CHECK(read_chakra_ranks(chakra_file(prefix, 2)).size() == 1);
  fs::rename(chakra_file(prefix, 2), dir / "elsewhere.et");
  REQUIRE_THROWS_WITH(read_chakra_ranks(prefix), Contains(chakra_file(prefix, 2) + " is missing"));
  fs::rename(dir / "elsewhere.et", dir / "other.0.et");
  REQUIRE_THROWS_WITH(read_chakra_ranks(dir.string()),
                      Contains("holds several Chakra traces (other, step)"));
  fs::rename(dir / "other.0.et", chakra_file(prefix, 2));
  fs::copy_file(chakra_file(prefix, 1), chakra_file(prefix, 4));
  REQUIRE_THROWS_WITH(read_chakra_ranks(prefix),
                      Contains("step.4.et: its metadata says rank 1, its name rank 4"));
  REQUIRE_THROWS_WITH(read_chakra_ranks((dir / "nothing").string()),
                      Contains("no such file, and no "));
  fs::remove_all(dir);
}
