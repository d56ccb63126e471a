// The results summary of whole MLPerf submissions, as mlperf_logging's
// result_summarizer computes it (training, and hpc strong and weak scaling,
// v0.7 on),
// and the per-benchmark score its compute_score meant to print.
//
// For each submitter folder (<org>/systems/, <org>/results/<system>/<benchmark>/):
//   - one row per system folder in results/ whose systems/<system>.json loads
//     and holds the fields the summarizer reads (division, status, submitter,
//     system_name, number_of_nodes, host_processor_model_name,
//     host_processor_core_count, host_processors_per_node,
//     accelerator_model_name, accelerators_per_node, framework, hw_notes,
//     sw_notes); results/<system>/privateid.json gives private_id;
//   - per benchmark folder: every result_*.txt is checked against the
//     compliance rules (<mlperf_logging>/compliance_checker); a log that fails
//     them, cannot be parsed, or lacks run_start/run_stop is a dropped run.
//     Score: minutes from run_start to run_stop; olympic mean dropping one
//     run each side (four for unet3d), the dropped runs counting as the
//     slowest; none when more runs were dropped than that. The score is
//     multiplied by the factor of a scaling.json found in the folder (the
//     review committee's file), which is only read;
//   - closed division: the RCP check (pruned pass) gives the RCP column
//     (Pass, Fail, Interp. Fail, Missing, No RCP, Unknown state), the GBS
//     and the olympic mean of the epochs (samples_to_converge);
//   - a benchmark folder with a power/ folder gives the Energy column: per
//     kept run, power/<result name>/node_*.txt (readings between
//     power_measurement_start and _stop, integrated over time and scaled to
//     the run's time to train, times conversion_eff) plus sw_*.txt
//     (interconnect_power_est times the time to train); the olympic mean in
//     the order of the runs' times to train, times the scaling factor;
//   - hpc: results/<system>/strong/ gives the strong rows, and
//     results/<system>/weak/ the weak-scaling rows (Summary::weak): per
//     benchmark the models that pass compliance, their instance scale
//     (number_of_nodes * accelerators_per_node as logged) and the minutes
//     from the first run_start to the last run_stop, when at least the
//     benchmark's result-file count of models passed ("CRITICAL ERROR: Not
//     enough converging weak scaling runs" otherwise). The official tool's
//     weak-scaling power table (summary_power.csv) is not produced: a weak
//     folder with power results gets a WARNING saying so.
// The tree is read through the shared walk (submission/tree.h): links that
// leave it are reported and not followed, depth, entries and sizes bounded.
// Rows are sorted by every column in order (empty cells last), as the
// official tool does. The official tool writes scaling.json into the tree
// (and its rcp step deletes it); podbench writes nothing there, so the rows
// are those of the official tool's first run on a clean tree.
//
// Where the official summarizer crashes (no results folder, a system file
// that is not JSON, an unknown benchmark folder, a count that is not a whole
// number, a run without node power logs or a power log without
// power_measurement_start, weak-scaling runs of different instance scales),
// podbench prints an ERROR line for it and leaves the system, benchmark or
// Energy cell out; the summary then fails.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "submission/rcp.h"

namespace podbench::submission {

// The benchmarks of a usage and rule set, in the summarizer's column order
// (its get_allowed_benchmarks; duplicates removed). Empty when unknown.
std::vector<std::string> SummaryBenchmarks(const std::string& usage, const std::string& ruleset);

// A cell: empty (NaN / None), text, whole number or float.
using Cell = std::variant<std::monostate, std::string, int64_t, double>;

struct SummaryTable {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

struct SummaryOptions {
  std::string usage = "training";
  std::string ruleset;  // "1.0.0", ...
  // The official package's mlperf_logging folder: compliance_checker/ and rcp_checker/.
  std::filesystem::path mlperf_logging;
  int64_t max_file_bytes = int64_t{1} << 30;  // a larger log or JSON file is an error
};

struct Summary {
  SummaryTable strong;    // summary.csv: one column per benchmark
  SummaryTable detailed;  // summary_detailed.csv: time_to_train, Energy, GBS, samples_to_converge, RCP, rcp_scaling_factor
  // hpc only: one row per system with a weak/ folder, per benchmark
  // number_of_models, instance_scale and time_to_train_all (the table the
  // official tool appends to summary.csv).
  SummaryTable weak;
  // What the official tool prints, line by line (NOTICE, WARNING, ERROR,
  // CRITICAL ERROR ...), plus podbench's own ERROR lines where it crashes.
  std::vector<std::string> messages;
  // True when a message starts with "ERROR" or "CRITICAL ERROR" (the
  // official tool's failing output).
  bool failed = false;
};

// Summarizes the submitter folders, in order. An error status only for a
// usage/ruleset the summarizer does not know or a compliance_checker folder
// whose entry rule file does not load.
Result<Summary> Summarize(const std::vector<std::filesystem::path>& folders, const SummaryOptions& options);

// summary.csv as pandas writes it (floats as Python repr, empty cells empty).
std::string SummaryCsv(const SummaryTable& t);
// summary.json as the official tool writes it (pandas to_json at 10 decimals,
// re-read and dumped by Python's json with indent 2).
std::string SummaryJson(const SummaryTable& t);

// The result_*.txt files directly in `folder`, sorted by name, read with the
// summary's rules (links are not followed, a file above `max_bytes` is not
// read); what could not be read is reported in *messages as an ERROR line.
struct ResultLog {
  std::filesystem::path path;
  std::string text;
};
std::vector<ResultLog> ReadResultLogs(const std::filesystem::path& folder, int64_t max_bytes,
                                      std::vector<std::string>* messages);

// The score of one benchmark folder (what compute_score prints before it
// crashes): per-run minutes and the olympic mean, with the folder's
// scaling.json applied.
struct FolderScore {
  std::string benchmark;
  std::vector<std::pair<std::string, double>> run_minutes;  // file name, minutes (kept runs)
  std::optional<double> score;
  double scaling_factor = 1.0;
  int required_runs = 0;
  std::vector<std::string> messages;
};
Result<FolderScore> ScoreBenchmarkFolder(const std::filesystem::path& folder, const std::string& system,
                                         const SummaryOptions& options);

}  // namespace podbench::submission
