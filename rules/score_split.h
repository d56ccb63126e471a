// Where a run's time to train went: one Google MLPerf v0.6 :::MLL log of
// ResNet-50, SSD, the Transformer or GNMT split into start-up, training, exposed
// evaluation and the final scoring tail, read from the lines Google's runners
// log. `podbench reproduce` sets it against podbench's predicted split of the
// same score, so every part means what it means in that model:
//   score = start-up
//         + K x (one block's training)
//         + per evaluation, the time it holds the run up: the device's part,
//           and any host scoring that the next block does not hide
//         + the tail: the last evaluation's host scoring, which ends the run
//           (run_stop follows the result that reaches the target).
// The last evaluation's device part is in eval_s, not in the tail
// (ScoreSplit::last_eval_device_s says how much of eval_s it is).
//
// How each runner's lines are read (ScoreSplit::method says it per log):
//   resnet       train_and_eval_runner logs block_start, eval_accuracy and
//                block_stop together when a block's evaluation has reached
//                the host; nothing marks where the block's training ends and
//                its evaluation begins. A block is the time between two
//                eval_accuracy lines (run_start for the first) and holds its
//                device evaluation: training_s includes the evaluations and
//                eval_s is 0 (eval_separated = false).
//   ssd          block_start (with eval_start) is logged when the host has the
//                previous evaluation's detections, so consecutive block_start
//                lines bound a segment of n device blocks and one device
//                evaluation; COCO scoring runs in other processes and ends at
//                eval_accuracy. n = epoch_count / (16/3): Google's block is
//                about 640,000 images (625 steps at batch 1024, 313 at 2048)
//                and the log's epoch is 120,000 images. The block time T and
//                the evaluation E are fitted by least squares over the later
//                segments (E clamped at 0 when the fit makes it negative, T
//                from the segments alone when every n is the same).
//   transformer  one device program runs train block, decode, train block...;
//                the infeed thread logs block_start k+1 once it has enqueued
//                block k's training and decode k's inputs, the main thread
//                logs eval_start k once it has decode k's results and
//                eval_stop/eval_accuracy after detokenising and BLEU. Training
//                of block k = block_start(k+1) - eval_start(k-1); evaluation k
//                = eval_start(k) - block_start(k+1). That evaluation is an
//                upper bound of the device's: enqueued is not trained, so it
//                also holds the training steps still queued in the infeed
//                when block_start k+1 is logged (the lead), with the decode,
//                the outfeed and any wait for the host. No line measures the
//                lead. GNMT's runner logs the same way and its decode is a
//                fixed 160 steps: at tpu-v3-1024 its first such gap is 0.45 s
//                and its later ones 2.0 s (median of 10 runs), so most of a
//                later gap there is lead (docs/models/gnmt.md).
//                The epoch_num of eval_accuracy/eval_stop lags and is not used:
//                evaluations are counted in log order.
//   gnmt         the same runner pattern and the same reading: the infeed
//                thread logs block_start N+1 after enqueuing epoch N's
//                training and evaluation N's inputs, the main thread
//                eval_start N once it holds the decode's predictions, then
//                BLEU; eval_stop ends the scoring. Its block_start lines go
//                on after run_stop and are not read.
// Common to all: start-up is the first block less the run's median
// later block (for SSD, less its n blocks at T and one E); the tail runs from
// the moment the host has the last evaluation's results to run_stop; only
// lines before run_stop count (SSD logs one more evaluation after it).
// training_s is what is left of run_stop - run_start after the other three,
// so the parts add up to it exactly; the remainder it absorbs is zero for
// resnet and the transformer and the fit's residuals for ssd.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::rules {

struct ScoreSplit {
  std::string file;
  std::string benchmark;  // the log's submission_benchmark
  std::string platform;   // the log's submission_platform ("" when absent)
  std::string status;     // run_stop's status ("success", "abort")

  double startup_s = 0;   // may be negative when the first block is quicker than the median one
  double training_s = 0;
  double eval_s = 0;
  double tail_s = 0;
  // run_stop - run_start: startup_s + training_s + eval_s + tail_s.
  double total_s() const { return startup_s + training_s + eval_s + tail_s; }

  int evals = 0;          // evaluations before run_stop
  int blocks = 0;         // training blocks the score holds (SSD: device blocks)
  double block_s = 0;     // one later block's training (the unit start-up is measured against)
  // The part of eval_s that is the last evaluation's device part (0 for resnet).
  double last_eval_device_s = 0;
  // false when the log has no line between a block's training and its
  // evaluation (resnet): eval_s is then 0 and training_s holds the evaluations.
  bool eval_separated = true;
  // Per evaluation before run_stop, in order, the host's scoring as the log
  // shows it: transformer eval_start..eval_stop (detokenising and BLEU); ssd
  // the next block_start..eval_accuracy (COCO in worker processes; the last
  // one is missing when no block_start follows it). Empty for resnet, whose
  // top-1 accumulates on the host while the evaluation streams out.
  std::vector<double> host_scoring_s;
  // transformer and gnmt: per evaluation before run_stop, in order, the
  // window eval_start(k) - block_start(k+1) that eval_s sums (the last one
  // without a block_start after it is left out). The decode is in each, and
  // so is the infeed lead, which varies: the smallest window bounds the
  // decode when its length is fixed (gnmt). Empty for resnet and ssd.
  std::vector<double> eval_windows_s;
  // One or two sentences: how the parts were read from this benchmark's lines.
  std::string method;
};

// Splits the time to train of the Google v0.6 :::MLL log at `log`; the
// benchmark is the log's submission_benchmark (resnet, ssd, transformer or
// gnmt). Errors name the file: InvalidArgument for a log of another benchmark
// (mask, minigo, ...), without submission_benchmark or not in :::MLL format;
// FailedPrecondition when lines the split needs are missing (run_start,
// run_stop, evaluations before run_stop, a second block to measure start-up
// against, SSD's epoch_count); the reader's error when the file cannot be read.
Result<ScoreSplit> ReadScoreSplit(const std::filesystem::path& log);

// The per-part medians over several runs of one (benchmark, platform).
struct ScoreSplitMedians {
  std::string benchmark, platform;
  std::vector<ScoreSplit> runs;  // in the order given
  // Each the median over the runs of that part (the middle two averaged when
  // the count is even); they need not add up to total_s.
  double startup_s = 0, training_s = 0, eval_s = 0, tail_s = 0;
  double total_s = 0;         // median time to train
  double block_s = 0;         // median of the runs' block_s
  double host_scoring_s = 0;  // median over every evaluation of every run; 0 when the log shows none
  // Medians of the runs' first eval_windows_s and of all their later ones;
  // 0 when the logs have none.
  double first_eval_window_s = 0, later_eval_window_s = 0;
};

// Splits every log in `logs` (files) and takes the medians. InvalidArgument
// when `logs` is empty or the logs are not all of one (benchmark, platform);
// otherwise the first failing log's error.
Result<ScoreSplitMedians> MedianScoreSplit(const std::vector<std::filesystem::path>& logs);

}  // namespace podbench::rules
