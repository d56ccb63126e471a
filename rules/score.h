// The MLPerf Training v0.6 result summarizer: olympic-mean time-to-train.
//
// Logs are found in the files and folders given (folders recursively, any
// layout): every file with :::MLL or :::MLLOG lines is a run. Runs are grouped
// by the log's own submission_org, submission_platform and
// submission_benchmark (first occurrence of each); a log that lacks one takes
// it from an MLPerf submission layout <org>/results/<platform>/<benchmark>/
// around it, else it is "-". Per run: minutes from run_start to run_stop
// (:::MLL timestamps are seconds; :::MLLOG time_ms is converted); MiniGo to
// eval_result's metadata.timestamp (seconds after run_start in v0.6 logs; an
// absolute timestamp is taken relative to run_start). A run whose run_stop
// status is not "success", or that lacks run_start/run_stop, did not converge
// and counts as the slowest. Score: drop the fastest and the slowest run, mean
// of the rest (with fewer than 3 runs, the plain mean). v0.6 run counts: 5 for
// resnet, ssd, maskrcnn (mask); 10 for gnmt, transformer, minigo.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace podbench::rules {

struct RunTime {
  std::string file;
  // The log's submission_org/platform/benchmark (empty when it has none).
  std::string org, platform, benchmark;
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

// The time-to-train of one log, and its submission keys. `benchmark` decides
// how it is timed (MiniGo: to eval_result); empty = the log's own
// submission_benchmark. A line that does not parse because its metadata is a
// Python dict literal (Intel's v0.6 MiniGo logs wrote str(dict)) is read
// through PythonLiteralToJson, after the lines that parse, and counted in
// `note`; other unparsable lines (Intel's corrupted one) are skipped and
// counted. The checker reads neither (as the official one).
Result<RunTime> ScoreRun(const std::filesystem::path& log, const std::string& benchmark = "");

// `text` with Python's literal spellings as JSON's: strings in single quotes
// double-quoted (a double quote inside escaped), True, False and None as
// true, false and null (outside strings, as whole words).
std::string PythonLiteralToJson(std::string_view text);

// How a run with run_stop status "abort" is scored.
enum class AbortPolicy {
  kSlowest,  // the v0.6 rule text: it counts as the slowest run (default)
  kTimed,    // its run_start..run_stop time is used, as the published v0.6 results did
             // (Google resnet tpu-v3-1024: 2.27 min, not 2.30)
};

// The olympic mean both MLPerf summarizers compute (v0.6 here, v0.7 on in
// submission/summary.h): `kept` holds the times of the runs that count, and
// `dropped` more runs did not count and rank as the slowest. Sorted, the
// `drop_each_side` fastest kept times and the (drop_each_side - dropped)
// slowest are left out (Python slicing: an end before the start leaves
// nothing), and the rest are summed in order from 0 and divided by their
// count. Absent when dropped > drop_each_side or no time remains.
std::optional<double> TrimmedOlympicMean(std::vector<double> kept, int dropped, int drop_each_side);

// Olympic mean over `runs` (non-converged runs count as slowest): with 3 runs
// or more, drop the fastest and the slowest, mean of the rest; with 1 or 2,
// their plain mean. Absent when there are no runs, when more than one run did
// not converge (3 or more runs), or when any did (fewer). `podbench run`
// scores its runs with this too.
std::optional<double> OlympicMean(const std::vector<RunTime>& runs, AbortPolicy policy = AbortPolicy::kSlowest);

// The result of scoring files and folders.
struct ScoreReport {
  // By org, platform and benchmark; names that hold numbers in numeric order
  // (NaturalLess: tpu-v3-8, tpu-v3-32, tpu-v3-128, tpu-v3-1024).
  std::vector<BenchmarkScore> scores;
  int64_t skipped_files = 0;           // files in the folders without MLPerf log lines
};

// Scores every log in `paths` (files, and folders searched recursively),
// grouped by (org, platform, benchmark), sorted as ScoreReport::scores says. NotFound for a path that
// does not exist or a folder with no log in it; InvalidArgument for a file
// given by name that is not an MLPerf log.
Result<ScoreReport> ScorePaths(const std::vector<std::filesystem::path>& paths,
                               AbortPolicy policy = AbortPolicy::kSlowest);

}  // namespace podbench::rules
