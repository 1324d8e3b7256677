// Every registered algorithm, exact, on the loopback communicator: ranks x counts for float
// sum, every dtype x op on a smaller matrix, every factorization of p for ddl. Both orders of
// halving-doubling (rhd, ddl's hd dimensions) run through the same matrices. Data are small
// integers, so the exact result is known in any reduction order.
#include <catch2/catch.hpp>

#include "algorithms/halving_doubling_steps.hpp"
#include "algorithms/registry.hpp"
#include "algorithms/tests/run_collective.hpp"

using namespace ddl;

namespace {

std::vector<std::size_t> counts_for(int p) {
  const std::size_t q = static_cast<std::size_t>(p);
  return {
      0, 1, q - 1, q, q + 1, test::large_count(1000003), test::large_count(std::size_t{1} << 20)};
}

// Every registered algorithm with its default options, and rhd with the non-default order.
struct Variant {
  const Algorithm* algo;
  HdOrder order;
  std::string label;
};
std::vector<Variant> variants() {
  std::vector<Variant> out;
  // In-switch algorithms need a backend whose switches reduce: the simulator's tests run them;
  // native a backend with a library of its own: the MPI backend's tests run it.
  for (const Algorithm& a : algorithms())
    if (!a.needs_in_switch && !a.needs_native_library) out.push_back({&a, HdOrder::near, a.name});
  out.push_back({&find_algorithm("rhd"), HdOrder::far, "rhd order=far"});
  return out;
}

const char* order_name(HdOrder o) {
  return o == HdOrder::near ? "near" : "far";
}

void require_exact(const Algorithm& algo, int p, std::size_t count, DType t, ReduceOp op,
                   const Options& opts) {
  INFO(algo.name << " order=" << order_name(opts.hd_order) << " ranks=" << p << " count=" << count
                 << " " << to_string(t) << " " << to_string(op) << " dims="
                 << (opts.dims.empty() ? "flat" : opts.dims.to_string()) << " rings=" << opts.rings
                 << " channels=" << opts.channels << " chunks=" << opts.chunks
                 << " segment=" << opts.segment_bytes << " root=" << opts.root);
  const test::Outcome out = test::run_collective(algo, p, count, t, op, opts);
  INFO(out.first);
  REQUIRE(out.wrong == 0);
}

}  // namespace

TEST_CASE("every algorithm is exact over ranks 1..16 and awkward counts", "[loopback][matrix]") {
  for (const Variant& v : variants()) DYNAMIC_SECTION(v.label) {
      for (int p = 1; p <= 16; ++p)
        for (std::size_t count : counts_for(p)) {
          Options opts;
          opts.root = p > 2 ? 2 : 0;
          opts.hd_order = v.order;
          require_exact(*v.algo, p, count, DType::float32, ReduceOp::sum, opts);
        }
    }
}

TEST_CASE("every algorithm is exact for every dtype and op", "[loopback][dtypes]") {
  for (const Variant& v : variants()) DYNAMIC_SECTION(v.label) {
      for (int p : {1, 2, 3, 4, 7, 8, 16})
        for (std::size_t count :
             {std::size_t{1}, static_cast<std::size_t>(p) + 1, std::size_t{259}})
          for (DType t : all_dtypes())
            for (ReduceOp op : all_reduce_ops()) {
              Options opts;
              opts.root = p - 1;
              opts.hd_order = v.order;
              require_exact(*v.algo, p, count, t, op, opts);
            }
    }
}

TEST_CASE("ddl is exact for every factorization, ring count and segmenting", "[loopback][ddl]") {
  const Algorithm& ddl = find_algorithm("ddl");
  for (int p = 1; p <= 16; ++p)
    for (const Dims& dims : factorizations(p, 3))
      for (int rings = 1; rings <= 3; ++rings)
        for (std::size_t segment : {std::size_t{0}, std::size_t{64}})
          for (std::size_t count : {static_cast<std::size_t>(p) + 1, std::size_t{4099}}) {
            Options opts;
            opts.dims = dims;
            opts.rings = rings;
            opts.segment_bytes = segment;
            require_exact(ddl, p, count, DType::float32, ReduceOp::sum, opts);
          }
}

TEST_CASE(
    "ddl's and hd's reduce-scatter and allgather are exact for every factorization and method",
    "[loopback][ddl]") {
  for (const char* name : {"reduce_scatter_ddl", "allgather_ddl"})
    for (int p : {1, 2, 3, 4, 6, 8, 12, 16})
      for (const Dims& dims : factorizations(p, 3))
        for (int rings : {1, 2})
          for (std::size_t count : {static_cast<std::size_t>(p) + 1, std::size_t{4099}}) {
            Options opts;
            opts.dims = dims;
            opts.rings = rings;
            require_exact(find_algorithm(name), p, count, DType::float32, ReduceOp::sum, opts);
            // Halving-doubling in every power-of-two dimension, both orders: pieces bit-reversed
            // (near) or in place (far) reach their blocks alike.
            opts.methods.clear();
            for (int d = 0; d < dims.count(); ++d)
              opts.methods.push_back(is_power_of_two(dims.extent(d)) ? IntraMethod::halving_doubling
                                                                     : IntraMethod::ring);
            for (HdOrder order : {HdOrder::near, HdOrder::far}) {
              opts.hd_order = order;
              require_exact(find_algorithm(name), p, count, DType::int32, ReduceOp::max, opts);
            }
          }
  for (const char* name : {"reduce_scatter_hd", "allgather_hd"})
    for (int p = 1; p <= 16; ++p)
      for (HdOrder order : {HdOrder::near, HdOrder::far}) {
        Options opts;
        opts.hd_order = order;
        for (std::size_t count :
             {static_cast<std::size_t>(p) - 1, static_cast<std::size_t>(p) + 3, std::size_t{4099}})
          require_exact(find_algorithm(name), p, count, DType::float32, ReduceOp::sum, opts);
      }
}

TEST_CASE("hier's reduce-scatter and allgather are exact on every grid and chunking",
          "[loopback][collectives]") {
  for (const char* name : {"reduce_scatter_hier", "allgather_hier"})
    for (int p : {1, 2, 3, 4, 6, 8, 12, 16})
      for (const Dims& dims : factorizations(p, 3))
        for (std::size_t segment : {std::size_t{0}, std::size_t{64}})
          for (std::size_t count : {static_cast<std::size_t>(p) - 1,
                                    static_cast<std::size_t>(p) + 1, std::size_t{4099}}) {
            Options opts;
            opts.dims = dims;
            opts.segment_bytes = segment;
            require_exact(find_algorithm(name), p, count, DType::float32, ReduceOp::sum, opts);
            require_exact(find_algorithm(name), p, count, DType::int32, ReduceOp::avg, opts);
          }
}

TEST_CASE("alltoall_hier is exact on every grid, with the unsent remainder kept",
          "[loopback][collectives]") {
  const Algorithm& hier = find_algorithm("alltoall_hier");
  for (int p : {2, 4, 6, 8, 12, 16})
    for (const Dims& dims : factorizations(p, 3))
      for (std::size_t count :
           {static_cast<std::size_t>(3 * p + p - 1), std::size_t{4099}, std::size_t{1}}) {
        Options opts;
        opts.dims = dims;
        require_exact(hier, p, count, DType::float32, ReduceOp::sum, opts);
        require_exact(hier, p, count, DType::int64, ReduceOp::sum, opts);
      }
}

TEST_CASE("ddl pipelined over chunks is exact for every factorization, ring count and method",
          "[loopback][ddl][chunks]") {
  const Algorithm& ddl = find_algorithm("ddl");
  for (int p : {1, 2, 4, 6, 8, 12})
    for (const Dims& dims : factorizations(p, 3))
      for (int chunks : {2, 3, 7})
        for (int rings : {1, 2})
          for (std::size_t count :
               {std::size_t{0}, static_cast<std::size_t>(p) + 1, std::size_t{4099}}) {
            Options opts;
            opts.dims = dims;
            opts.chunks = chunks;
            opts.rings = rings;
            opts.segment_bytes = count > 1000 ? 256 : 0;
            require_exact(ddl, p, count, DType::float32, ReduceOp::sum, opts);
            if (dims.count() == 2 && is_power_of_two(dims.extent(0))) {
              opts.methods = {IntraMethod::halving_doubling, IntraMethod::ring};
              require_exact(ddl, p, count, DType::int32, ReduceOp::max, opts);
            }
          }
}

TEST_CASE("ring's channels are exact for every node size, channel count and dtype",
          "[loopback][ring][channels]") {
  const Algorithm& ring = find_algorithm("ring");
  for (int p : {1, 2, 3, 4, 6, 8, 12})
    for (int node = 1; node <= p; ++node) {
      if (p % node != 0) continue;
      for (int channels : {2, 3, node + 1})
        for (std::size_t count :
             {std::size_t{0}, static_cast<std::size_t>(p) + 1, std::size_t{1001}}) {
          Options opts;
          opts.dims = node == p ? Dims::flat(p) : Dims({node, p / node});
          opts.channels = channels;
          opts.segment_bytes = count > 1000 ? 64 : 0;
          require_exact(ring, p, count, DType::float32, ReduceOp::sum, opts);
          require_exact(ring, p, count, DType::float16, ReduceOp::avg, opts);
        }
    }
}

TEST_CASE("ddl handles unit and uneven dimensions and halving-doubling per dimension",
          "[loopback][ddl]") {
  const Algorithm& ddl = find_algorithm("ddl");
  struct Case {
    const char* dims;
    std::vector<IntraMethod> methods;
  };
  const auto R = IntraMethod::ring, H = IntraMethod::halving_doubling;
  const std::vector<Case> cases = {
      {"3x5x7", {}},   {"4x1x2", {}},   {"1x4", {}},          {"4x1x2", {H, R, H}},
      {"2x4", {H, H}}, {"4x3", {H, R}}, {"2x2x2", {R, H, R}}, {"8", {H}},
  };
  for (const Case& c : cases)
    for (int rings : {1, 2, 3})
      for (HdOrder order : {HdOrder::near, HdOrder::far})
        for (std::size_t count : {std::size_t{1}, std::size_t{106}, std::size_t{100003}}) {
          Options opts;
          opts.dims = Dims::parse(c.dims);
          opts.methods = c.methods;
          opts.rings = rings;
          opts.hd_order = order;
          opts.segment_bytes = count > 1000 ? 4096 : 0;
          for (ReduceOp op : {ReduceOp::sum, ReduceOp::avg})
            require_exact(ddl, opts.dims.rank_count(), count, DType::float32, op, opts);
        }
}

TEST_CASE("segmented transfers are exact for every algorithm", "[loopback][segments]") {
  for (const Variant& v : variants()) DYNAMIC_SECTION(v.label) {
      for (int p : {2, 3, 5, 8})
        for (std::size_t segment : {std::size_t{4}, std::size_t{100}, std::size_t{4096}}) {
          Options opts;
          opts.segment_bytes = segment;
          opts.root = p / 2;
          opts.hd_order = v.order;
          require_exact(*v.algo, p, 10007, DType::float32, ReduceOp::sum, opts);
          require_exact(*v.algo, p, 333, DType::float16, ReduceOp::max, opts);
        }
    }
}

TEST_CASE("dims that do not match the world are errors", "[loopback][errors]") {
  for (const char* name : {"ddl", "hier", "auto"}) {
    Options opts;
    opts.dims = Dims::parse("4x2");
    INFO(name);
    CHECK_THROWS_WITH(
        test::run_collective(find_algorithm(name), 4, 16, DType::float32, ReduceOp::sum, opts),
        Catch::Contains("'4x2'") && Catch::Contains("8 ranks") && Catch::Contains("4"));
  }
  CHECK_THROWS_WITH(find_algorithm("nccl"), Catch::Contains("'nccl'") && Catch::Contains("ring"));
}
