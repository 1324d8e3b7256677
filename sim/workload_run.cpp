#include "sim/workload_run.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>

#include "algorithms/error.hpp"
#include "harness/progress.hpp"
#include "sim/sim_communicator.hpp"
#include "workloads/workload_driver.hpp"

namespace ddl::sim {

namespace {

class SimSignal : public harness::StreamSignal {
 public:
  SimSignal() : semaphore_(simgrid::s4u::Semaphore::create(0)) {}
  void post() override { semaphore_->release(); }
  void wait() override { semaphore_->acquire(); }

 private:
  simgrid::s4u::SemaphorePtr semaphore_;
};

struct RankSignals {
  SimSignal ready, done;
  std::atomic<int> buckets_pending{0};  // actors run one at a time: atomic only for the API
};

struct Shared {
  const Platform* platform;
  const WorkloadRunConfig* config;
  SimWorld world;
  std::vector<const Algorithm*> algos;
  std::vector<RankSignals> signals;  // per rank
  simgrid::s4u::BarrierPtr barrier;
  std::vector<double> iteration_s, compute_s;  // [algo * iters + i], max over ranks
  int finished = 0;
  std::exception_ptr error;
};

harness::StreamConfig stream_config(const Shared& sh, const Algorithm* algo) {
  harness::StreamConfig c;
  c.plan = &sh.config->plan;
  c.algo = algo;
  c.options = sh.config->options;
  // Timing-only: null views of the right size, nothing allocated (the comm stream replaces the
  // gradients by an address range of its communicator's).
  c.gradients = MutView{nullptr, sh.config->plan.gradient_bytes};
  c.parameters = MutView{nullptr, sh.config->plan.gradient_bytes};
  c.effects = sh.config->effects;
  c.dtype = sh.config->dtype;
  c.pause = [](double seconds) { simgrid::s4u::this_actor::sleep_for(seconds); };
  return c;
}

void fail(Shared* sh) {
  if (!sh->error) {
    sh->error = std::current_exception();
    simgrid::s4u::Actor::kill_all();  // the others would wait for this rank forever
  }
}

// Only std::exception is caught: SimGrid's kill unwinds with a type outside that hierarchy.
void compute_main(Shared* sh, int rank) {
  try {
    const WorkloadRunConfig& cfg = *sh->config;
    SimCommunicator comm(sh->world, rank);
    RankSignals& sig = sh->signals[static_cast<std::size_t>(rank)];
    for (std::size_t a = 0; a < sh->algos.size(); ++a) {
      harness::StreamConfig sc = stream_config(*sh, sh->algos[a]);
      sc.buckets_pending = &sig.buckets_pending;
      for (int it = 0; it < cfg.warmup + cfg.iters; ++it) {
        sh->barrier->wait();
        const harness::IterationTimes t =
            harness::compute_iteration(comm, sc, sig.ready, sig.done, it);
        if (it < cfg.warmup) continue;
        const std::size_t slot =
            a * static_cast<std::size_t>(cfg.iters) + static_cast<std::size_t>(it - cfg.warmup);
        sh->iteration_s[slot] = std::max(sh->iteration_s[slot], t.iteration_s());
        sh->compute_s[slot] = std::max(sh->compute_s[slot], t.single_gpu_s);
      }
    }
    ++sh->finished;
  } catch (const std::exception&) {
    fail(sh);
  }
}

void comm_main(Shared* sh, int rank) {
  try {
    const WorkloadRunConfig& cfg = *sh->config;
    SimCommunicator comm(sh->world, rank);
    RankSignals& sig = sh->signals[static_cast<std::size_t>(rank)];
    // The gradients the allreduces run on: an address range of no memory, so the simulator can
    // tell which bytes a message lands in (peer-read receives, sim_communicator.hpp).
    const Scratch gradients(comm, cfg.plan.gradient_bytes);
    // Wall time of a long simulation, on rank 0, a step per bucket: one iteration of a large
    // model can take a minute to simulate.
    const std::size_t buckets = cfg.plan.buckets.size();
    std::optional<harness::Progress> progress;
    if (rank == 0)
      progress.emplace(
          "ddlsim", sh->algos.size() * static_cast<std::size_t>(cfg.warmup + cfg.iters) * buckets);
    for (const Algorithm* algo : sh->algos) {
      harness::StreamConfig sc = stream_config(*sh, algo);
      sc.gradients = gradients.view();
      sc.buckets_pending = &sig.buckets_pending;
      for (int it = 0; it < cfg.warmup + cfg.iters; ++it) {
        comm.note_written(sc.gradients);  // the backward pass rewrites every gradient
        harness::BucketObserver step;
        if (progress)
          step = [&](const harness::BucketEvent& e) {
            progress->step(algo->name + " iteration " + std::to_string(it + 1) + " bucket " +
                           std::to_string(e.bucket + 1) + "/" + std::to_string(buckets));
          };
        harness::comm_iteration(comm, sc, sig.ready, sig.done, it, step);
      }
    }
    ++sh->finished;
  } catch (const std::exception&) {
    fail(sh);
  }
}

}  // namespace

std::vector<WorkloadResult> run_workload(const Platform& platform,
                                         const WorkloadRunConfig& config) {
  DDL_CHECK(config.iters >= 1 && config.warmup >= 0,
            "workload iterations must be >= 1 and warmup >= 0");
  harness::validate(config.effects);
  Shared sh{&platform, &config, SimWorld{&platform, false}, {}, {}, {}, {}, {}, 0, {}};
  for (const std::string& name : config.algos) {
    const Algorithm& a = find_algorithm(name);
    if (a.collective != Collective::allreduce)
      throw InvalidArgument("--workload needs allreduce algorithms; '" + name + "' is a " +
                            std::string(to_string(a.collective)));
    sh.algos.push_back(&a);
  }
  const std::size_t p = static_cast<std::size_t>(platform.ranks());
  sh.signals = std::vector<RankSignals>(p);
  sh.iteration_s.assign(sh.algos.size() * static_cast<std::size_t>(config.iters), 0.0);
  sh.compute_s = sh.iteration_s;
  sh.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(p));
  for (std::size_t r = 0; r < p; ++r) {
    const int rank = static_cast<int>(r);
    simgrid::s4u::Actor::create("rank" + std::to_string(r), platform.gpus[r], compute_main, &sh,
                                rank);
    simgrid::s4u::Actor::create("rank" + std::to_string(r) + "-comm", platform.gpus[r], comm_main,
                                &sh, rank);
  }
  try {
    simgrid::s4u::Engine::get_instance()->run();
  } catch (const simgrid::Exception& e) {
    throw BackendError(std::string("simulation failed: ") + e.what());
  }
  if (sh.error) std::rethrow_exception(sh.error);
  if (sh.finished != 2 * platform.ranks())
    throw BackendError(
        "simulation deadlocked: " + std::to_string(2 * platform.ranks() - sh.finished) + " of " +
        std::to_string(2 * platform.ranks()) + " workload actors never finished");
  std::vector<WorkloadResult> results;
  for (std::size_t a = 0; a < sh.algos.size(); ++a) {
    WorkloadResult r;
    r.algo = sh.algos[a]->name;
    for (int it = 0; it < config.iters; ++it) {
      r.iteration_s +=
          sh.iteration_s[a * static_cast<std::size_t>(config.iters) + static_cast<std::size_t>(it)];
      r.compute_s +=
          sh.compute_s[a * static_cast<std::size_t>(config.iters) + static_cast<std::size_t>(it)];
    }
    r.iteration_s /= config.iters;
    r.compute_s /= config.iters;
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace ddl::sim
