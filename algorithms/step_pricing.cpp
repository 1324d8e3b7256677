#include "algorithms/step_pricing.hpp"

#include <cmath>

namespace ddl {

int link_class(const std::vector<std::vector<int>>& coords, int a, int b) {
  const std::vector<int>& x = coords[static_cast<std::size_t>(a)];
  const std::vector<int>& y = coords[static_cast<std::size_t>(b)];
  for (std::size_t d = x.size(); d-- > 0;)
    if (x[d] != y[d]) return static_cast<int>(d);
  return 0;
}

LinkCost message_cost(const CostParams& params, int dim, double bytes) {
  return params.message ? params.message(dim, bytes)
                        : params.per_dim[static_cast<std::size_t>(dim)];
}

void ClassLoad::add_send(const LinkCost& l, double bytes) {
  alpha = std::max(alpha, l.latency(bytes));
  transfer += bytes * l.beta;
}

void ClassLoad::add_recv(const LinkCost& l, double bytes, double peer_read) {
  alpha = std::max(alpha, l.latency(bytes));
  transfer += bytes * l.beta;
  lone = std::max(lone, peer_read * (l.latency(bytes) + bytes * l.beta));
}

void ProcessorSharing::serve(const std::vector<double>& begin, const std::vector<double>& bytes,
                             double bandwidth) {
  const std::size_t n = begin.size();
  end.assign(n, 0.0);
  if (n == 1) {  // the loop below for one flow, to the bit: bandwidth / 1 is bandwidth
    end[0] = begin[0] + bytes[0] / bandwidth;
    return;
  }
  order_.resize(n);
  for (std::size_t i = 0; i < n; ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](std::size_t x, std::size_t y) {
    return begin[x] < begin[y] || (begin[x] == begin[y] && x < y);
  });
  left_ = bytes;
  active_.clear();
  std::size_t next = 0;
  double now = n ? begin[order_[0]] : 0;
  while (next < n || !active_.empty()) {
    if (active_.empty()) now = std::max(now, begin[order_[next]]);
    while (next < n && begin[order_[next]] <= now) active_.push_back(order_[next++]);
    const double rate = bandwidth / static_cast<double>(active_.size());
    double least = left_[active_[0]];
    for (const std::size_t i : active_) least = std::min(least, left_[i]);
    const double done = now + least / rate;
    if (next < n && begin[order_[next]] < done) {  // an arrival first: serve until then
      const double until = begin[order_[next]];
      for (const std::size_t i : active_) left_[i] -= (until - now) * rate;
      now = until;
      continue;
    }
    // The least flow ends (and any within a rounding error of it): decided by the bytes left,
    // not by the clock, which cannot resolve a tiny remainder late in a long schedule.
    now = done;
    std::erase_if(active_, [&](std::size_t i) {
      left_[i] -= least;
      if (left_[i] > std::abs(least) * 1e-9) return false;
      end[i] = now;
      return true;
    });
  }
}

void StepFlows::clear() {
  src.clear();
  dst.clear();
  bytes.clear();
  peer_read.clear();
  route.clear();
  alone.clear();
  start.clear();
}

SharedLinks::SharedLinks(const Topology& topology)
    : on_link_(static_cast<std::size_t>(topology.link_count())), link_free_(on_link_.size(), 0.0) {}

void SharedLinks::price_step(StepFlows& s) {
  const std::size_t n = s.src.size();
  s.begin_.resize(n);
  s.served_.resize(n);
  s.own_.resize(n);
  s.used_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const double bytes = s.bytes[i];
    const Topology::Alone& alone = s.alone[i];
    s.begin_[i] = s.start[i] + alone.latency;
    s.own_[i] = alone.latency + alone.transfer;
    s.served_[i] = s.begin_[i];
    for (const RouteLink& l : *s.route[i]) {
      if (!l.shared) {
        s.served_[i] = std::max(s.served_[i], s.begin_[i] + bytes / l.bandwidth);
        continue;
      }
      std::vector<std::size_t>& flows = on_link_[static_cast<std::size_t>(l.id)];
      if (flows.empty()) s.used_.push_back(l.id);
      flows.push_back(i);
    }
  }
  for (const int id : s.used_) {
    std::vector<std::size_t>& flows = on_link_[static_cast<std::size_t>(id)];
    s.b_.clear();
    s.w_.clear();
    double bandwidth = 0;
    double& free = link_free_[static_cast<std::size_t>(id)];
    for (const std::size_t i : flows) {
      s.b_.push_back(std::max(s.begin_[i], free));
      s.w_.push_back(s.bytes[i]);
      for (const RouteLink& l : *s.route[i])
        if (l.id == id) bandwidth = l.bandwidth;
    }
    s.link_.serve(s.b_, s.w_, bandwidth);
    for (std::size_t k = 0; k < flows.size(); ++k) {
      s.served_[flows[k]] = std::max(s.served_[flows[k]], s.link_.end[k]);
      free = std::max(free, s.link_.end[k]);
    }
    flows.clear();
  }
  s.time.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    s.time[i] = std::max({s.served_[i] - s.start[i], s.own_[i], s.peer_read[i] * s.own_[i]});
}

}  // namespace ddl
