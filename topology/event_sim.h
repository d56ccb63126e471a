// Discrete-event simulation of a Schedule on the links of a Torus.
//
// Every transfer is routed (Torus::Route) and crosses its links one after
// the other. A link carries one message at a time at its bandwidth: a
// message holds link l for bytes / bandwidth seconds, its head reaches the
// next link latency_s after it started (cut-through), and it is delivered
// bytes / bandwidth + latency_s after it started on its last link. Messages
// waiting for a busy link queue per link, lower stream index first, then in
// arrival order. A transfer starts as Schedule's ordering contract allows;
// stages are separated by barriers. Asserts (in release builds too) that no
// link ever starts a message while it carries another.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "base/status.h"
#include "topology/schedule.h"
#include "topology/torus.h"

namespace podbench::topology {

struct SimOptions {
  bool record_link_intervals = false;  // fill SimResult::intervals (memory: one pair a hop)
};

struct SimResult {
  double time_s = 0;             // makespan
  uint64_t transfers = 0;
  uint64_t link_traversals = 0;  // hops summed over transfers
  uint64_t events = 0;
  int busiest_link = -1;
  double busiest_link_busy_s = 0;  // total time the busiest link carried data
  // Per link, [start, end) of every message it carried, when recorded.
  std::vector<std::vector<std::pair<double, double>>> intervals;
};

// REQUIRES: schedule.num_cores == torus.num_cores(). `bytes_per_element` is
// 4 for fp32, 2 for bf16. InvalidArgument on a mismatched schedule.
Result<SimResult> Simulate(const Schedule& schedule, const Torus& torus, double bytes_per_element,
                           const SimOptions& options = {});

}  // namespace podbench::topology
