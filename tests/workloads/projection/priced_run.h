// A workload's projected run priced as `podbench reproduce` prices it, for
// the per-model projection tests.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "topology/system.h"
#include "workloads/projected_runs.h"

namespace podbench::workloads::testing {

// `workload`'s google-v0.6 preset on `slice` of the built-in system with
// `sets` (key=value); a test failure naming the slice (and an empty model)
// when it cannot be priced.
inline ProjectedRunModel Priced(const std::string& workload, const std::string& slice,
                                const std::vector<std::string>& sets = {}) {
  auto run = ModelProjectedRun(workload, "google-v0.6", slice, topology::DefaultSystem(), sets);
  EXPECT_TRUE(run.ok()) << workload << " " << slice << ": " << run.status().ToString();
  return run.ok() ? std::move(run).value() : ProjectedRunModel{};
}

// The run's predicted time to train in seconds (0, and a test failure, when
// it has none).
inline double ScoreS(const ProjectedRunModel& run) {
  auto row = PredictRow(run);
  EXPECT_TRUE(row.ok()) << row.status().ToString();
  return row.ok() ? row->score_s : 0;
}

}  // namespace podbench::workloads::testing
