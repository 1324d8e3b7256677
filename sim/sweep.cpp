#include "sim/sweep.hpp"

#include <algorithm>
#include <exception>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "algorithms/check_pattern.hpp"
#include "algorithms/collective_input.hpp"
#include "algorithms/error.hpp"
#include "harness/tracing_communicator.hpp"
#include "sim/sim_communicator.hpp"

namespace ddl::sim {

namespace {

struct Case {
  const Algorithm* algo;
  std::size_t bytes;
  bool out_of_place;
};

struct Shared {
  const Platform* platform;
  const SweepConfig* config;
  const SweepProgress* progress;
  const CaseDone* done;
  SimWorld world;
  std::vector<Case> cases;
  simgrid::s4u::BarrierPtr barrier;
  std::vector<double> iteration_time;  // [case * iters + iteration], max over ranks
  std::vector<std::size_t> wrong;      // per case, summed over ranks
  std::vector<int> ranks_done;         // per case: ranks past it
  std::vector<std::vector<harness::TraceEvent>>* trace;  // per rank; null: not tracing
  int finished = 0;
  std::exception_ptr error;
};

// Case ci's row: the mean of its timed iterations' times, its wrong count in payload mode.
CaseResult result_of(const Shared& sh, std::size_t ci) {
  const SweepConfig& config = *sh.config;
  CaseResult r;
  r.algo = sh.cases[ci].algo->name;
  r.bytes = sh.cases[ci].bytes;
  r.out_of_place = sh.cases[ci].out_of_place;
  for (int it = 0; it < config.iters; ++it)
    r.time_s += sh.iteration_time[ci * static_cast<std::size_t>(config.iters) +
                                  static_cast<std::size_t>(it)];
  r.time_s /= config.iters;
  if (config.check) r.wrong = sh.wrong[ci];
  return r;
}

void rank_main(Shared* sh, int rank) {
  // Actors run one at a time in one thread: the shared vectors need no lock. Only
  // std::exception is caught: SimGrid's kill unwinds with a type outside that hierarchy.
  try {
    const SweepConfig& cfg = *sh->config;
    const int p = sh->platform->ranks();
    SimCommunicator sim_comm(sh->world, rank);
    // Tracing reads only the simulated clock: it costs no simulated time.
    harness::TracingCommunicator traced(sim_comm);
    Communicator& comm = sh->trace ? static_cast<Communicator&>(traced) : sim_comm;
    std::size_t max_bytes = 0, max_input = 0;
    for (const Case& c : sh->cases) {
      max_bytes = std::max(max_bytes, c.bytes);
      if (c.out_of_place) max_input = std::max(max_input, c.bytes);
    }
    // The rank's buffer, from its own memory space: in timing-only mode an address range of no
    // memory, which still tells the buffer apart from scratch (SimCommunicator, peer-read
    // receives). Out-of-place cases read their input from a buffer of its own.
    const Scratch buffer(sim_comm, max_bytes);
    const Scratch input_buffer(sim_comm, max_input);
    const std::size_t iterations = static_cast<std::size_t>(cfg.warmup + cfg.iters);
    for (std::size_t ci = 0; ci < sh->cases.size(); ++ci) {
      const Case& c = sh->cases[ci];
      const std::size_t count = c.bytes / dtype_size(cfg.type);
      const MutView view = buffer.view().slice(0, c.bytes);
      const MutView input = c.out_of_place ? input_buffer.view().slice(0, c.bytes) : view;
      for (std::size_t it = 0; it < iterations; ++it) {
        // Each iteration's input is freshly written, as ddlrun --check fills it on a real
        // machine; out of place, the output starts poisoned (what the call leaves is wrong).
        if (cfg.check) {
          fill_input(input.data, count, cfg.type, cfg.op, c.algo->collective, rank, p,
                     cfg.options.root);
          if (c.out_of_place) fill_poison(view.data, count, cfg.type);
        }
        sim_comm.note_written(view);
        if (c.out_of_place) sim_comm.note_written(input);
        if (sh->trace) traced.set_context(c.algo->name, c.bytes, static_cast<int>(it) - cfg.warmup);
        *sh->platform->footprint_bytes =
            static_cast<double>(c.bytes);  // every rank writes the same
        sh->barrier->wait();
        const double start = comm.now();
        if (c.out_of_place)
          run_out_of_place_call(comm, *c.algo, input, view, cfg.type, cfg.op, cfg.options);
        else
          c.algo->run(comm, view, cfg.type, cfg.op, cfg.options);
        const double elapsed = comm.now() - start;
        if (it >= static_cast<std::size_t>(cfg.warmup)) {
          double& slot = sh->iteration_time[ci * static_cast<std::size_t>(cfg.iters) + it -
                                            static_cast<std::size_t>(cfg.warmup)];
          slot = std::max(slot, elapsed);
        }
      }
      if (cfg.check)
        sh->wrong[ci] += check_output(view.data, count, cfg.type, cfg.op, c.algo->collective, rank,
                                      p, cfg.options.root)
                             .wrong;
      if (sh->trace) {
        std::vector<harness::TraceEvent>& mine = (*sh->trace)[static_cast<std::size_t>(rank)];
        for (harness::TraceEvent& e : traced.take_events()) mine.push_back(std::move(e));
      }
      if (rank == 0 && *sh->progress)
        (*sh->progress)(ci + 1, sh->cases.size(), c.algo->name, c.bytes);
      if (++sh->ranks_done[ci] == p && *sh->done) (*sh->done)(ci, result_of(*sh, ci));
    }
    ++sh->finished;
  } catch (const std::exception&) {
    if (!sh->error) {
      sh->error = std::current_exception();
      simgrid::s4u::Actor::kill_all();  // the others would wait for this rank forever
    }
  }
}

}  // namespace

std::vector<CaseResult> run_sweep(const Platform& platform, const SweepConfig& config,
                                  const SweepProgress& progress,
                                  std::vector<harness::TraceEvent>* trace, const CaseDone& done) {
  return run_cases(platform, config, config.each(), progress, trace, done);
}

std::vector<CaseResult> run_cases(const Platform& platform, const SweepConfig& config,
                                  const std::vector<harness::SweepCase>& cases,
                                  const SweepProgress& progress,
                                  std::vector<harness::TraceEvent>* trace, const CaseDone& done) {
  std::vector<std::vector<harness::TraceEvent>> per_rank(
      trace ? static_cast<std::size_t>(platform.ranks()) : 0);
  Shared sh{&platform, &config, &progress, &done, SimWorld{&platform, config.check}, {},
            {},        {},      {},        {},    trace ? &per_rank : nullptr,       0,
            {}};
  const std::size_t elem = dtype_size(config.type);
  for (const harness::SweepCase& c : cases)
    sh.cases.push_back({&find_algorithm(c.algo), c.bytes / elem * elem, c.out_of_place});
  sh.iteration_time.assign(sh.cases.size() * static_cast<std::size_t>(config.iters), 0.0);
  sh.wrong.assign(sh.cases.size(), 0);
  sh.ranks_done.assign(sh.cases.size(), 0);
  sh.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(platform.ranks()));
  for (int r = 0; r < platform.ranks(); ++r)
    simgrid::s4u::Actor::create("rank" + std::to_string(r),
                                platform.gpus[static_cast<std::size_t>(r)], rank_main, &sh, r);
  try {
    simgrid::s4u::Engine::get_instance()->run();
  } catch (const simgrid::Exception& e) {
    throw BackendError(std::string("simulation failed: ") + e.what());
  }
  if (sh.error) std::rethrow_exception(sh.error);
  if (sh.finished != platform.ranks())
    throw BackendError("simulation deadlocked: " + std::to_string(platform.ranks() - sh.finished) +
                       " of " + std::to_string(platform.ranks()) + " ranks never finished");
  if (trace)
    for (std::vector<harness::TraceEvent>& rank_events : per_rank)
      trace->insert(trace->end(), std::make_move_iterator(rank_events.begin()),
                    std::make_move_iterator(rank_events.end()));
  std::vector<CaseResult> results;
  for (std::size_t ci = 0; ci < sh.cases.size(); ++ci) results.push_back(result_of(sh, ci));
  return results;
}

}  // namespace ddl::sim
