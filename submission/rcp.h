// The RCP check: a benchmark's convergence against the reference convergence
// points (RCPs) of its rule-set version, as mlperf_logging's rcp_checker
// computes it (v1.0 and later).
//
// Semantics kept from the official checker (mlperf_logging 4.1.59):
//   - RCP records come from <mlperf_logging>/rcp_checker/<usage>_<ruleset>/
//     rcps_<benchmark>.json, or from a custom file; per record: olympic mean
//     of its convergence list (4 dropped each side for unet3d, else 1), numpy
//     std of the whole list, and the minimum acceptable mean found by a
//     bisection on a one-sided two-sample t-test (alpha 0.05, tolerance 1e-4);
//     max speedup = mean / min acceptable mean.
//   - Pruned pass (default): the records with a batch size below the fastest
//     record's are dropped, then each inner point slower than the
//     interpolation of its neighbours is dropped. Full pass: every record.
//   - A submission converges in the epoch_num of the last eval line before a
//     successful run_stop (rounded to 3 decimals), samples_count for the LLM
//     benchmarks, the first passing FID/CLIP step for stable_diffusion, and
//     train_samples for BERT with bert_train_samples. A run that does not
//     converge counts as 1e9; more than one (more than 4 for unet3d) fails the
//     check ("Insufficient convergence").
//   - An RCP at the submission's batch size is compared directly; else one is
//     interpolated between the nearest smaller and larger batch sizes; with no
//     smaller one, the smallest RCP is used and must converge slower; with no
//     larger one the RCP is missing. Pass when the olympic mean of the
//     submission's epochs is >= RCP mean / max speedup. The normalization
//     factor is RCP mean / submission mean when above 1, else 1.
//   - rcp_bypass turns a failed "RCP found", "RCP Interpolation" or "Missing
//     RCP" into a pass, as the package checker does.
// Where the official checker crashes (a benchmark missing from its run-count
// table, no RCP file for the benchmark, no submission_benchmark, no result
// file, a run that stops successfully without an eval line), podbench gives a
// failing verdict with a message saying so (RcpVerdict::official_crash).
//
// podbench never writes scaling.json: the factor is returned instead.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace podbench::submission {

struct RcpRecord {
  std::string name;       // the record's key in the JSON file ("bert_ref_448"), or "<bench>_interp_<bs>"
  std::string benchmark;
  double bs = 0;          // global batch size
  std::vector<double> epochs;  // sorted convergence list (empty for an interpolated record)
  double mean = 0;        // olympic mean of `epochs`
  double stdev = 0;
  double max_speedup = 0;
  double min_epochs = 0;  // the minimum acceptable submission mean
  // The record's "Hyperparams" as compact JSON, in file order ("{}" for an interpolated record).
  std::string hyperparams = "{}";
  // An interpolated record: the names of the two records it lies between.
  std::vector<std::string> interpolated_from;
};

// The number of submission runs the official RCP checker expects for
// `benchmark` (its table), or nullopt for a benchmark not in it.
std::optional<int> RcpSubmissionRuns(std::string_view usage, std::string_view benchmark);

// The RCP records of one benchmark, with their statistics, sorted by batch size.
struct RcpTable {
  std::string usage, ruleset, benchmark;
  int submission_runs = 0;
  std::vector<RcpRecord> full;
  std::vector<RcpRecord> pruned;
  // Warnings the official checker logs while loading a custom file.
  std::vector<std::string> warnings;
};

// Parses an RCP JSON document (the contents of rcps_<benchmark>.json or a
// custom file; `name` is used in messages) and computes every record's
// statistics and the pruned set. Corruption naming `name` for text that is
// not such a document. REQUIRES: RcpSubmissionRuns(usage, benchmark).
Result<RcpTable> ParseRcpTable(std::string_view text, std::string_view name, std::string_view usage,
                               std::string_view ruleset, std::string_view benchmark);

// The path of the official RCP file of a benchmark under an mlperf_logging folder.
std::filesystem::path RcpFilePath(const std::filesystem::path& mlperf_logging, std::string_view usage,
                                  std::string_view ruleset, std::string_view benchmark);

// What the RCP checker reads from one result log.
struct RunConvergence {
  bool converged = false;
  double epochs = 1e9;        // convergence point (1e9 when not converged)
  std::optional<double> bs;   // global_batch_size (absent: -1 in the official tool)
  std::optional<std::string> benchmark;  // submission_benchmark
  std::string problem;        // why the official reader would crash on this log, else empty
};

// Reads a result log's text as the official rcp_checker does (line by line,
// ":::MLLOG " token, latin-1). `ruleset` chooses stable_diffusion's step unit.
RunConvergence ReadRunConvergence(std::string_view log_text, std::string_view ruleset, bool bert_train_samples);

enum class RcpPass { kPruned, kFull };

struct RcpOptions {
  std::string usage = "training";
  std::string ruleset;  // "1.0.0" ...
  RcpPass pass = RcpPass::kPruned;
  bool bert_train_samples = false;
  bool bypass = false;  // the package checker's --rcp_bypass
};

struct RcpVerdict {
  bool pass = false;
  // The official message: "RCP found", "RCP Interpolation", "Missing RCP,
  // please submit RCP with BS = N", "RCP not found but slower convergence on
  // smaller batch size", "Cannot find any RCPs", "Could not detect
  // global_batch_size", "Insufficient convergence" (+ " passed using
  // rcp_bypass"), or podbench's message where the official tool crashes.
  std::string message;
  bool official_crash = false;  // the official checker raises here
  // Where official_crash: str() of the exception the official checker raises,
  // where podbench knows it ("'dlrm'" for its KeyError on a benchmark missing
  // from the run-count table, "None" for runs naming no single benchmark);
  // else empty. The summarizer prints it as the official one does.
  std::string official_exception;
  double norm_factor = 1.0;     // RCP mean / submission mean, at least 1
  std::optional<double> bs;     // the runs' global batch size (-1: unknown or mismatched)
  std::optional<std::string> benchmark;
  std::optional<double> submission_mean;  // olympic mean of the runs' epochs, when compared
  std::optional<RcpRecord> record;        // the RCP compared against
  // The runs' epochs as the official get_submission_epochs returns them (1e9
  // for a run that did not converge); absent when more runs failed to
  // converge than allowed, or when the check stopped before reading them.
  std::optional<std::vector<double>> epochs;
  std::vector<std::string> log;           // the official checker's log lines ("INFO - ...")
};

// The check over the runs of one benchmark folder. `load` returns the RCP
// table of a benchmark (the official file, or a custom one); its error
// becomes a failing verdict.
using RcpLoader = std::function<Result<RcpTable>(const std::string& benchmark)>;
RcpVerdict CheckRcp(const std::vector<RunConvergence>& runs, const RcpOptions& options, const RcpLoader& load);

// A loader reading <mlperf_logging>/rcp_checker/<usage>_<ruleset>/rcps_<benchmark>.json,
// or `custom_rcps` when not empty.
RcpLoader FileRcpLoader(std::filesystem::path mlperf_logging, std::string usage, std::string ruleset,
                        std::filesystem::path custom_rcps = {});

}  // namespace podbench::submission
