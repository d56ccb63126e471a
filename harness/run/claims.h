// Testing the seed papers' claims (workloads/claims.h) with real runs: each
// claim's two arms are made as `podbench run` makes a scored set (stored in
// the results store, logs written and checked), podbench's figure is read
// off the pair as the claim's measure says, and set beside the paper's.
//
// The arms are experiments, not submissions: an arm that does not reach its
// target (a functional ablation trained to a fixed budget) is recorded as
// aborted and still measured; it does not make a claim fail. An error of the
// store, a log file or a workload stops the claims (the runs before it stay
// recorded).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "harness/run/scored_runs.h"
#include "results/report_data.h"
#include "results/store.h"
#include "workloads/claims.h"

namespace podbench::harness {

// What one arm measured: over its runs, the medians of the per-step device
// time and of each category's per-step time (seconds), the set's v0.6 score,
// and the mean and spread of each run's last evaluation of the first target.
struct ClaimArm {
  std::string label;
  std::vector<int64_t> run_ids;
  std::vector<std::string> statuses;  // per run, as stored
  int64_t global_batch = 0;
  double device_step_s = 0;
  std::map<std::string, double> category_step_s;  // "gradients", "bn_sync", "halo", ...
  std::optional<double> score_min;
  std::string metric;
  double final_metric_mean = 0, final_metric_sd = 0;
  std::vector<double> final_metric;  // per run
};

struct ClaimOutcome {
  const workloads::ClaimSpec* spec = nullptr;
  ClaimArm base, variant;
  results::ClaimRow row;  // figures, the verdict, and what the report draws
  double host_s = 0;      // host seconds both arms took
};

struct ClaimRunOptions {
  std::string db;           // the results store's file (runs are added to it)
  std::filesystem::path log_dir;  // each arm's logs: <id>-base_<i>.log, <id>-variant_<i>.log
  uint64_t seed = 1;        // run i of each arm uses seed + i
  std::string system;       // --system; empty = the built-in TPU-v3
  // Called after each claim (progress, printing).
  std::function<void(const ClaimOutcome&)> on_claim;
};

// Makes both arms of `claim`, measures them and gives the verdict.
// InvalidArgument naming the claim and arm for a request `podbench run`
// refuses (a claim that names an unknown workload, slice or value).
Result<ClaimOutcome> RunClaim(const workloads::ClaimSpec& claim, results::ResultsStore& store,
                              const ClaimRunOptions& options);

// podbench's figure of a claim from its measured arms, and the verdict.
// Exposed for tests: the arms need not come from runs.
void JudgeClaim(const workloads::ClaimSpec& claim, const ClaimArm& base, const ClaimArm& variant,
                results::ClaimRow* row);

}  // namespace podbench::harness
