// The MLPerf Training v0.6 result summarizer: olympic-mean time-to-train.
//
// Logs are found under result folders laid out as MLPerf submissions are:
//   <org>/results/<platform>/<benchmark>/result_N.txt
// Per run: minutes from run_start to run_stop (:::MLL timestamps are
// seconds; :::MLLOG time_ms is converted); MiniGo to eval_result's
// metadata.timestamp (seconds after run_start in v0.6 logs; an absolute
// timestamp is taken relative to run_start). A run whose run_stop status is not
// "success", or that lacks run_start/run_stop, did not converge and counts as
// the slowest. Score: drop the fastest and the slowest run, mean of the rest.
// v0.6 run counts: 5 for resnet, ssd, maskrcnn (mask); 10 for gnmt,
// transformer, minigo.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::rules {

struct RunTime {
  std::string file;
  bool converged = false;
  double minutes = 0;  // valid when converged, or when stopped (run_start..run_stop exists)
  bool stopped = false;  // has run_start and run_stop, whatever the status
  std::string note;    // why not converged
};

struct BenchmarkScore {
  std::string org, platform, benchmark;
  std::vector<RunTime> runs;
  int required_runs = 0;
  std::optional<double> score_minutes;  // absent when too few converged runs
  std::string note;
};

// The v0.6 number of runs for `benchmark` (5 or 10).
int RequiredRuns(const std::string& benchmark);

// The time-to-train of one log.
Result<RunTime> ScoreRun(const std::filesystem::path& log, const std::string& benchmark);

// How a run with run_stop status "abort" is scored.
enum class AbortPolicy {
  kSlowest,  // the v0.6 rule text: it counts as the slowest run (default)
  kTimed,    // its run_start..run_stop time is used, as the published v0.6 results did
             // (Google resnet tpu-v3-1024: 2.27 min, not 2.30)
};

// Olympic mean over `runs` (non-converged runs count as slowest). Absent when
// fewer than 3 runs, or when more than one run did not converge.
std::optional<double> OlympicMean(const std::vector<RunTime>& runs, AbortPolicy policy = AbortPolicy::kSlowest);

// Scores every result_*.txt under `dirs`, grouped by (org, platform, benchmark), sorted.
Result<std::vector<BenchmarkScore>> ScoreDirs(const std::vector<std::filesystem::path>& dirs,
                                              AbortPolicy policy = AbortPolicy::kSlowest);

}  // namespace podbench::rules
