// The API workloads and the harness use: price or run a collective by name.
//
//   const SystemSpec& sys = DefaultSystem();
//   Result<Slice> slice = Slice::FromName("tpu-v3-2048", sys);
//   LogicalTopology all = LogicalTopology::WholeSlice(*slice);
//   Result<double> t = CollectiveTime("torus2d", 25.6e6 * 4, all);       // analytic, s
//   Result<SimResult> s = SimulateCollective("torus2d", 25.6e6 * 4, DType::kF32, all);
//
// Analytic times assume no contention (alpha-beta per hop, see algorithm.h);
// the event simulation adds contention and the dependency structure.
#pragma once

#include <string_view>

#include "base/status.h"
#include "topology/algorithm.h"
#include "topology/event_sim.h"
#include "topology/functional.h"
#include "topology/logical.h"

namespace podbench::topology {

// Analytic time in seconds of `algorithm` for a per-core payload of `bytes`.
// NotFound for an unknown algorithm.
Result<double> CollectiveTime(std::string_view algorithm, double bytes, const LogicalTopology& logical,
                              const AlgorithmOptions& options = {});

// Builds the schedule for `bytes` of `dtype` (rounded down to whole
// elements) and simulates it. Cost grows with the number of transfers: a
// 2-D all-reduce on tpu-v3-2048 has ~130 k, a 1-D ring ~2 M.
Result<SimResult> SimulateCollective(std::string_view algorithm, double bytes, DType dtype,
                                     const LogicalTopology& logical, const AlgorithmOptions& options = {},
                                     const SimOptions& sim_options = {});

// Runs `algorithm` on `buffers` (which hold every core) with threads.
Status RunCollective(std::string_view algorithm, const LogicalTopology& logical, CoreBuffers& buffers,
                     const AlgorithmOptions& options = {}, int threads = 0);

}  // namespace podbench::topology
