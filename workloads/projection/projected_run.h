// One projected run, composed the same way for every model: the layer above
// the step (projection.h) that turns a model's step, its evaluation and its
// published convergence into a run on the emulated clock. ResNet, SSD and
// the Transformer (and every model after them) give it three things and
// nothing else:
//
//   StepSpec   the full-size graph, the step configuration and the pricing
//              options their hyperparameters set (what `podbench model`
//              prices for a preset: the same function serves both);
//   RunPlan    the training schedule (how many steps each evaluation label
//              is after run_start), the evaluation (examples, or none for the
//              evaluation-off ablation), the published convergence (labels
//              at which Google's runs first reached the target, with how many
//              runs did), the modelled metric curve and the untimed init line;
//   labels     the evaluations the run makes (the workload's EvalCadence).
//
// The run, on the emulated clock (ComposeRun; the projected session and
// every prediction of a published row price exactly this):
//   start-up     the first epoch's extra over its steps (FirstEpochExtraS:
//                host.startup_s, and the fill of a decoded-example cache
//                beyond what the first epoch's steps take), in the first
//                block;
//   blocks       the training before each evaluation: StepsThrough(label) -
//                StepsThrough(previous label) steps of the training step;
//   evaluations  each one's exposed part (EvalProjection::exposed_s against
//                the next block's training: the device's steps, and the
//                host's scoring where it is serial or outlasts that block);
//   tail         the evaluation that reaches the target ends the run on its
//                result: its device part and its scoring in full;
//   init         untimed (init_start..run_start): the model's InitLine, a
//                straight line through the published init times in chips.
// The metric values a projected run logs are MODELLED (ModelledCurve), never
// computed: they only say when the target is reached, which the convergence
// draw decides.
//
// How the three v0.6 loops and the two still to come fit it:
//   ResNet       labels are epochs of 1,281,167 images (evaluations every 4);
//                StepsThrough counts whole steps from run_start, so rounding
//                does not drift;
//   SSD          labels are the epoch_num Google's logs give each evaluation;
//                the steps are Google's blocks of iterations_per_loop steps
//                (TrainingSchedule::points);
//   Transformer  a label is one block of iterations_per_loop steps (an "epoch"
//                of Google's logs);
//   GNMT         labels are epochs of int(3,442,299 / B) steps; its two
//                infeed hosts taking turns are its graph's
//                HostWork::infeed_hosts and its length buckets a train_mix,
//                both priced by the step, not by the composition;
//   MiniGo       a label is a generation (RunPlan::generation, games.h): its
//                training steps on a training sub-slice (StepSpec::slice)
//                then gating games are the block's training path, its
//                self-play on the other cores runs beside them (the block
//                takes the longer of the two, the excess charged to input),
//                and its target evaluation is games played beside training
//                (EvalCadence::beside_training, the harness's timeline; the
//                composition does not add it to the run, whose time ends at
//                the winning model's save, the end of its block).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/slice.h"
#include "workloads/projection/games.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projection.h"

namespace podbench::projection {

// What one training step of a run is: the graph, its layout and its
// pricing. A model builds it from its hyperparameters (one function for its
// projected runs and for `podbench model`).
struct StepSpec {
  ModelGraph graph;
  StepConfig config;
  ProjectionOptions options;
  // Training steps whose shapes differ from step to step (GNMT's length
  // buckets: one bucket per global batch, the loops running to its longest
  // sequence). Empty: every training step is `graph`'s. Otherwise the
  // training step is the mean of these graphs' steps weighted by their
  // shares (TrainMixStep); `graph` still prices the evaluation and names the
  // parameters. Each graph has `graph`'s training ops, by name and order.
  struct Share {
    double weight = 0;
    ModelGraph graph;
  };
  std::vector<Share> train_mix;
  // The slice of the pod the training step runs on when it is not the run's
  // whole slice (MiniGo: a tpu-v3-8 trains while the other cores play
  // games), by name ("tpu-v3-8"); empty: the run's slice. `config` is laid
  // out for it.
  std::string slice;
  // What chose `slice` (a hyperparameter's name), named when the system has
  // no such slice; empty: "the step's slice".
  std::string slice_from;
};

// The slice `spec`'s step runs on: `run_slice`, or its StepSpec::slice of
// the same system. InvalidArgument when that has more cores than
// `run_slice`; FromName's errors, prefixed by StepSpec::slice_from.
Result<topology::Slice> StepSliceOf(const StepSpec& spec, const topology::Slice& run_slice);

// The training step of `spec` (on StepSliceOf(spec, slice)): ProjectTrainStep of its graph, or, with a
// train_mix, the share-weighted mean of each graph's (every category, op
// row time and FLOPs, and the host input). InvalidArgument when a share's
// weight is not > 0 or its ops differ from `graph`'s; the layer's errors.
Result<StepProjection> TrainMixStep(const StepSpec& spec, const topology::Slice& slice);

// An evaluation label and the training steps from run_start through its
// block.
struct EvalSchedulePoint {
  int64_t label = 0;
  int64_t steps = 0;
};

// How many training steps each evaluation label is after run_start.
struct TrainingSchedule {
  int64_t global_batch = 1;        // examples of the graph's unit per step
  int64_t examples_per_epoch = 1;  // of the first epoch (its cache fill), and of every epoch without `points`
  // Explicit steps per label (SSD: Google's blocks); empty: a label is an
  // epoch of examples_per_epoch, ceil(label x examples / batch) steps.
  std::vector<EvalSchedulePoint> points;

  // Steps from run_start through the block of `label` (0 for label 0).
  // InvalidArgument naming the label when `points` has no such label.
  Result<int64_t> StepsThrough(int64_t label) const;
  // Steps of the first epoch: ceil(examples_per_epoch / global_batch).
  int64_t FirstEpochSteps() const;
  // InvalidArgument unless global_batch, examples_per_epoch >= 1 and the
  // points' labels and steps both ascend.
  Status Validate() const;
};

// Where published runs first reached the target: a label and how many runs
// reached it there.
struct ConvergencePoint {
  int64_t label = 0;
  int runs = 0;
};
struct Convergence {
  std::vector<ConvergencePoint> points;
  std::string source;  // e.g. "Google's v0.6 ResNet-50 runs at batch 32768 (19 runs)"

  int total_runs() const;
  // One point, drawn with probability proportional to its runs by a
  // generator seeded with `seed`: a projected run's convergence.
  // REQUIRES: total_runs() >= 1.
  const ConvergencePoint& Draw(uint64_t seed) const;
};

// The modelled metric a projected run logs at each evaluation: `first` at the
// first evaluation, rising (linearly for shape 0, else as 1 - exp(-shape x))
// to at most target - below just before the converging evaluation, which
// logs target + above; later ones rise by per_label_after a label, capped.
// Modelled, never computed (the log marks each value so, with `how`).
struct ModelledCurve {
  std::string metric{};  // the QualityTarget's metric, e.g. "top1"
  double target = 0;
  double first = 0;
  double below = 0;
  double above = 0;
  double per_label_after = 0;
  double cap = 1;
  double shape = 0;
  std::string how{};  // a few words, e.g. "epochs to 0.759 drawn per seed from Google's v0.6 runs"

  // The value at `label` of a run whose first evaluation is `first_label`
  // and whose converging one is `converge_label`.
  double At(int64_t label, int64_t first_label, int64_t converge_label) const;
};

// The untimed init (init_start..run_start) as a straight line in chips
// through the published init times; it never enters the score.
struct InitLine {
  double base_s = 0;
  double per_chip_s = 0;
  std::string source;
  double At(int64_t chips) const { return base_s + per_chip_s * static_cast<double>(chips); }
};

// Everything besides the step that a projected run needs.
struct RunPlan {
  TrainingSchedule schedule;
  // Examples per evaluation (50,000 images, 3,003 sentences); 0: evaluation
  // is not priced (the projected_eval=false ablation).
  int64_t eval_examples = 0;
  Convergence convergence;
  ModelledCurve curve;
  // Further metrics the run logs beside `curve`'s, each on its own modelled
  // curve and converging at the same evaluation (Mask R-CNN's mask mAP
  // beside its box mAP: both targets must hold). Empty for one-metric models.
  std::vector<ModelledCurve> extra_curves;
  InitLine init;
  // Seconds of work that runs beside each block's training and that the
  // block waits for (MiniGo's self-play): a block takes the longer of the
  // two, the excess charged to input. 0 for the v0.6 models podbench runs.
  double concurrent_block_s = 0;
  // A loop of generations (MiniGo, games.h): each block (one label) is a
  // generation, priced by PricePlan as PriceGeneration prices it on the
  // cores the training sub-slice leaves; its evaluation is the plan's
  // evaluation games (eval_examples must be 0), run beside training.
  std::optional<GenerationPlan> generation;
};

// What a run's parts cost, priced once.
struct RunPricing {
  StepProjection step;
  std::optional<EvalProjection> eval;  // absent: evaluation not priced
  TrainingSchedule schedule;
  double first_epoch_extra_s = 0;  // start-up and cache fill (FirstEpochExtraS)
  double concurrent_block_s = 0;
  // A loop of generations: a block's training is the generation's period
  // (GenerationPricing::PeriodS of its steps), its evaluation the
  // evaluation games, beside training: ComposeRun does not add them to the
  // run, which ends at the winning block's end.
  std::optional<GenerationPricing> generation;

  // Seconds of training of a block of `steps` steps (its concurrent work
  // included), and what of that is beyond the steps themselves.
  double BlockTrainS(int64_t steps) const;
  double BlockExcessS(int64_t steps) const;
  // Seconds an evaluation holds the run up: its exposed part against a next
  // block of `next_block_s`, or, when it is the last one (`last`), its
  // device part and its scoring in full. 0 when evaluation is not priced.
  double EvalS(double next_block_s, bool last) const;
  // EvalS of the evaluation at labels[i] of a run that evaluates at `labels`
  // (ascending, priced by `schedule`): against the block from labels[i] to
  // labels[i + 1], or in full when `last` or when labels[i] is the last of
  // them (an `i` past the end included). Errors: StepsThrough's.
  Result<double> EvalAtS(const std::vector<int64_t>& labels, size_t i, bool last) const;
  // Of EvalS(.., true), the host's scoring after the device part: the tail.
  double TailS() const;
};

// Prices the step, the evaluation of `eval_examples` (none when 0) and the
// first epoch's extra. Errors: the layer's; InvalidArgument for a schedule
// that fails Validate.
Result<RunPricing> PriceRun(const StepSpec& spec, const TrainingSchedule& schedule, int64_t eval_examples,
                            double concurrent_block_s, const topology::Slice& slice);
// PriceRun of a projected run's plan: its schedule, evaluation and
// concurrent work, and its generation's games (PriceGeneration on the cores
// the step's slice leaves; InvalidArgument with eval_examples as well).
Result<RunPricing> PricePlan(const StepSpec& spec, const RunPlan& plan, const topology::Slice& slice);

// A run's time to train split into its parts (seconds).
struct ScoreSplit {
  double startup_s = 0;     // the first epoch's extra
  double training_s = 0;    // every block's training
  double evaluation_s = 0;  // every evaluation's exposed part but the tail
  double tail_s = 0;        // the last evaluation's host scoring
  double total_s() const { return startup_s + training_s + evaluation_s + tail_s; }
  ScoreSplit& operator+=(const ScoreSplit& o);
  ScoreSplit Scaled(double f) const;
};

// One composed run that stops at the evaluation labelled `end_label`.
struct ComposedRun {
  ScoreSplit split;
  std::vector<double> eval_end_s;  // when each evaluation ends, seconds after run_start
  // The median gap between consecutive evaluation ends, the gap to the last
  // one (which holds the tail) left out when there are at least two: the
  // published "block" figure, as results::MedianEvalGapS reads a run's log.
  // 0 with fewer than 2 evaluations.
  double median_gap_s = 0;
  int64_t steps = 0;
};
// `labels`: the evaluations the run makes, ascending. InvalidArgument when
// `end_label` is not one of them.
Result<ComposedRun> ComposeRun(const RunPricing& pricing, const std::vector<int64_t>& labels, int64_t end_label);

// A published row as the composition predicts it: every run of the
// convergence table composed, the v0.6 score (olympic mean: drop the fastest
// and the slowest with 3 runs or more), the mean split of those runs, the
// median block gap over them and the first epoch's extra.
struct RowPrediction {
  double score_s = 0;
  ScoreSplit split;
  double median_gap_s = 0;
  double first_epoch_extra_s = 0;
  double step_s = 0;
};
Result<RowPrediction> PredictOverConvergence(const RunPricing& pricing, const std::vector<int64_t>& labels,
                                             const Convergence& convergence);

}  // namespace podbench::projection
