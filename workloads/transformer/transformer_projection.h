// A projected Transformer run through the shared projection layer
// (workloads/projection/projection.h): what one block of training, one
// evaluation (beam-search decode on the device, BLEU on the host) and the
// start-up cost on a slice, and how a run's score splits into them. The
// plugin (transformer.cc), `podbench calibrate` and the fidelity tests price
// with this one function, so they cannot disagree.
//
// The run's timeline, as Google's v0.6 runner ran it (one device program
// for the whole run, repeat(blocks){train block; decode 3003 sentences}; the
// host scores BLEU in its main thread while the device trains on):
//   score = start-up (host.startup_s, after run_start)
//         + evals x (block of steps_per_block steps + the decode's device time)
//         + per evaluation but the last, the part of the host's scoring that
//           outlasts the next block (none at Google's sizes)
//         + the tail: the host's scoring of the last evaluation, which ends
//           the run (run_stop follows the eval_accuracy that reaches 25.0).
// options.overlap.eval_scoring_with_training = false scores serially.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projection/projection.h"
#include "workloads/resnet/resnet_calibration.h"

namespace podbench::transformer {

struct TransformerRunProjection {
  projection::StepProjection step;
  projection::EvalProjection eval;
  int64_t steps_per_block = 0;
  double startup_s = 0;
  bool eval_priced = true;  // false: the evaluation-off ablation (eval costs nothing)

  double block_train_s() const { return double(steps_per_block) * step.step_s(); }
  // Seconds an evaluation holds the run up: the device's decode, and the
  // host's scoring where it is serial or outlasts the next block; the last
  // evaluation's scoring in full (the tail).
  double eval_s(bool last) const;
  // The median gap between two evaluations' eval_accuracy lines.
  double gap_s() const { return block_train_s() + eval_s(false); }
};

// Prices the step, the evaluation of `eval_sentences` and the start-up.
// REQUIRES: steps_per_block >= 1. Errors: the layer's.
Result<TransformerRunProjection> ProjectTransformerRun(const projection::ModelGraph& graph,
                                                       const projection::StepConfig& config,
                                                       const topology::Slice& slice,
                                                       const projection::ProjectionOptions& options,
                                                       int64_t steps_per_block, int64_t eval_sentences,
                                                       bool eval_priced = true);

// A run's predicted score split into its parts (seconds).
struct ScoreSplit {
  double training_s = 0;    // evals x block
  double evaluation_s = 0;  // every evaluation's exposed time but the last one's scoring
  double startup_s = 0;
  double tail_s = 0;        // the host's scoring of the last evaluation
  double total_s() const { return training_s + evaluation_s + startup_s + tail_s; }
};
ScoreSplit SplitScore(const TransformerRunProjection& run, int64_t evals);

// Google's v0.6 configuration of `slice` (the google-v0.6 preset) priced on
// `system`, with `overrides` ("key=value", projection/overrides.h, plus
// "eval=false" for the evaluation-off ablation) applied on top.
struct GooglePrediction {
  std::string slice;
  TransformerRunProjection run;
  ScoreSplit split;               // at the table's mean number of evaluations
  double score_min = 0;           // olympic mean over the convergence table's 10 runs
  double published_score_min = 0;
  double published_gap_s = 0;
  double gap_error_pct() const { return (run.gap_s() - published_gap_s) / published_gap_s * 100; }
  double score_error_pct() const { return (score_min - published_score_min) / published_score_min * 100; }
};
Result<GooglePrediction> PredictGoogleTransformer(const topology::SystemSpec& system, const std::string& slice,
                                                  const std::vector<std::string>& overrides = {});

// The Transformer's blocks in `podbench calibrate`'s joint fit: the median
// gap between evaluations (a block of training and its decode) of Google's
// configuration at tpu-v3-32 and tpu-v3-2048 against the published ones.
std::vector<resnet::CalibrationTarget> TransformerCalibrationTargets();

}  // namespace podbench::transformer
