#include "topology/event_sim.h"

#include <algorithm>
#include <cassert>
#include <queue>

namespace podbench::topology {
namespace {

enum class EventType : uint8_t { kArrive, kLinkFree, kDeliver };

struct Event {
  double t;
  uint64_t seq;
  uint32_t id;   // transfer (kArrive, kDeliver) or link (kLinkFree)
  uint16_t hop;  // kArrive: index into the transfer's route
  EventType type;
  bool operator>(const Event& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

struct Waiting {
  uint32_t priority;  // stream index
  uint64_t seq;
  uint32_t transfer;
  uint16_t hop;
  double arrived;
  bool operator>(const Waiting& o) const {
    return priority != o.priority ? priority > o.priority : seq > o.seq;
  }
};

// One stage: transfers flattened over its streams.
class StageSim {
 public:
  StageSim(const Stage& stage, const Torus& torus, double bpe, SimResult* result, bool record,
           std::vector<double>* link_busy)
      : torus_(torus), bpe_(bpe), result_(result), record_(record), link_busy_(*link_busy) {
    const int cores = torus.num_cores();
    for (uint32_t k = 0; k < stage.streams.size(); ++k) {
      const Stream& s = stage.streams[k];
      for (int step = 0; step < s.num_steps(); ++step) {
        for (uint32_t i = s.step_begin[step]; i < s.step_begin[step + 1]; ++i) {
          xfers_.push_back({&s.transfers[i], k, static_cast<uint32_t>(step), 0, 0, 0, 0});
        }
      }
    }
    const size_t keys = stage.streams.size() * size_t(cores);
    auto key = [&](uint32_t k, int core) { return size_t(k) * cores + core; };
    // CSR of sends and receives per (stream, core), in step order.
    send_begin_.assign(keys + 1, 0);
    recv_begin_.assign(keys + 1, 0);
    for (const X& x : xfers_) {
      ++send_begin_[key(x.stream, x.t->src) + 1];
      ++recv_begin_[key(x.stream, x.t->dst) + 1];
    }
    for (size_t i = 0; i < keys; ++i) {
      send_begin_[i + 1] += send_begin_[i];
      recv_begin_[i + 1] += recv_begin_[i];
    }
    sends_.resize(xfers_.size());
    recv_steps_.resize(xfers_.size());
    recv_done_.assign(xfers_.size(), 0);
    std::vector<uint32_t> sfill(send_begin_.begin(), send_begin_.end() - 1);
    std::vector<uint32_t> rfill(recv_begin_.begin(), recv_begin_.end() - 1);
    for (uint32_t i = 0; i < xfers_.size(); ++i) {
      X& x = xfers_[i];
      sends_[sfill[key(x.stream, x.t->src)]++] = i;
      const size_t rk = key(x.stream, x.t->dst);
      x.recv_slot = rfill[rk];
      recv_steps_[rfill[rk]++] = x.step;
    }
    // need = receives of the sender with an earlier step.
    for (size_t kk = 0; kk < keys; ++kk) {
      uint32_t r = recv_begin_[kk];
      for (uint32_t j = send_begin_[kk]; j < send_begin_[kk + 1]; ++j) {
        X& x = xfers_[sends_[j]];
        while (r < recv_begin_[kk + 1] && recv_steps_[r] < x.step) ++r;
        x.need = r - recv_begin_[kk];
      }
    }
    next_send_.assign(send_begin_.begin(), send_begin_.end() - 1);
    done_prefix_.assign(keys, 0);
    link_busy_flag_.assign(torus.num_links(), 0);
    waitq_.resize(torus.num_links());
    cores_ = cores;
  }

  // Runs the stage from time `t0`; returns its end time.
  double Run(double t0) {
    double end = t0;
    for (size_t kk = 0; kk + 1 < send_begin_.size(); ++kk) TryRelease(kk, t0);
    while (!events_.empty()) {
      const Event e = events_.top();
      events_.pop();
      ++result_->events;
      switch (e.type) {
        case EventType::kArrive: Arrive(e.id, e.hop, e.t); break;
        case EventType::kLinkFree: {
          link_busy_flag_[e.id] = 0;
          auto& q = waitq_[e.id];
          if (!q.empty()) {
            std::pop_heap(q.begin(), q.end(), std::greater<>());
            const Waiting w = q.back();
            q.pop_back();
            Start(w.transfer, w.hop, e.id, e.t);
          }
          break;
        }
        case EventType::kDeliver: {
          end = std::max(end, e.t);
          X& x = xfers_[e.id];
          const size_t rk = size_t(x.stream) * cores_ + x.t->dst;
          recv_done_[x.recv_slot] = 1;
          uint32_t& prefix = done_prefix_[rk];
          while (recv_begin_[rk] + prefix < recv_begin_[rk + 1] && recv_done_[recv_begin_[rk] + prefix]) ++prefix;
          TryRelease(rk, e.t);
          break;
        }
      }
    }
    for (size_t kk = 0; kk + 1 < send_begin_.size(); ++kk) {
      assert(next_send_[kk] == send_begin_[kk + 1] && "a transfer never became ready");
    }
    return end;
  }

 private:
  struct X {
    const Transfer* t;
    uint32_t stream, step;
    uint32_t need;       // receives of the sender (same stream, earlier steps) it waits for
    uint32_t recv_slot;  // its index in recv_steps_/recv_done_
    uint32_t route_off;
    uint16_t route_len;
  };

  void Push(double t, uint32_t id, uint16_t hop, EventType type) {
    events_.push({t, seq_++, id, hop, type});
  }

  void TryRelease(size_t key, double t) {
    uint32_t& next = next_send_[key];
    while (next < send_begin_[key + 1] && xfers_[sends_[next]].need <= done_prefix_[key]) {
      const uint32_t id = sends_[next++];
      X& x = xfers_[id];
      torus_.Route(x.t->src, x.t->dst, &scratch_);
      assert(!scratch_.empty());
      x.route_off = static_cast<uint32_t>(routes_.size());
      x.route_len = static_cast<uint16_t>(scratch_.size());
      routes_.insert(routes_.end(), scratch_.begin(), scratch_.end());
      ++result_->transfers;
      Push(t, id, 0, EventType::kArrive);
    }
  }

  void Arrive(uint32_t id, uint16_t hop, double t) {
    const int link = routes_[xfers_[id].route_off + hop];
    if (!link_busy_flag_[link]) {
      Start(id, hop, link, t);
    } else {
      auto& q = waitq_[link];
      q.push_back({xfers_[id].stream, seq_++, id, hop, t});
      std::push_heap(q.begin(), q.end(), std::greater<>());
    }
  }

  void Start(uint32_t id, uint16_t hop, int link, double t) {
    // Capacity invariant: a link carries one message at a time.
    assert(!link_busy_flag_[link] && "link over capacity");
    const X& x = xfers_[id];
    const LinkSpec& spec = torus_.LinkParams(link);
    const double dur = double(x.t->count) * bpe_ * spec.beta();
    link_busy_flag_[link] = 1;
    link_busy_[link] += dur;
    ++result_->link_traversals;
    if (record_) result_->intervals[link].push_back({t, t + dur});
    Push(t + dur, static_cast<uint32_t>(link), 0, EventType::kLinkFree);
    if (hop + 1 < x.route_len) {
      Push(t + spec.latency_s, id, static_cast<uint16_t>(hop + 1), EventType::kArrive);
    } else {
      Push(t + dur + spec.latency_s, id, 0, EventType::kDeliver);
    }
  }

  const Torus& torus_;
  double bpe_;
  SimResult* result_;
  bool record_;
  std::vector<double>& link_busy_;
  int cores_ = 0;
  std::vector<X> xfers_;
  std::vector<uint32_t> send_begin_, recv_begin_, sends_, recv_steps_, next_send_, done_prefix_;
  std::vector<uint8_t> recv_done_, link_busy_flag_;
  std::vector<std::vector<Waiting>> waitq_;
  std::vector<int32_t> routes_, scratch_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t seq_ = 0;
};

}  // namespace

Result<SimResult> Simulate(const Schedule& schedule, const Torus& torus, double bytes_per_element,
                           const SimOptions& options) {
  if (schedule.num_cores != torus.num_cores()) {
    return Status::InvalidArgument("schedule for " + std::to_string(schedule.num_cores) +
                                   " cores simulated on a torus of " + std::to_string(torus.num_cores()));
  }
  SimResult result;
  if (options.record_link_intervals) result.intervals.resize(torus.num_links());
  std::vector<double> busy(torus.num_links(), 0.0);
  double t = 0;
  for (const Stage& stage : schedule.stages) {
    StageSim sim(stage, torus, bytes_per_element, &result, options.record_link_intervals, &busy);
    t = sim.Run(t);
  }
  result.time_s = t;
  auto it = std::max_element(busy.begin(), busy.end());
  if (it != busy.end()) {
    result.busiest_link = static_cast<int>(it - busy.begin());
    result.busiest_link_busy_s = *it;
  }
  return result;
}

}  // namespace podbench::topology
