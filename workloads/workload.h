// The workload plugin contract: what one MLPerf v0.6 model tells the harness.
//
// A workload DESCRIBES itself (hyperparameters with their closed-division
// constraints, model, data, parallel layout, quality targets and how they are
// logged, evaluation cadence, where its time to train ends) and EXECUTES
// blocks of training and evaluations when asked, reporting what each cost on
// the emulated TPU-v3 clock and the log lines of its own it wants written. It
// never writes the MLPerf log, never reads a clock, never decides when a run
// stops or whether it complies: the harness owns the lifecycle
// (harness/run/), the clocks, the seeds, the log and the verdict, as
// loadgen's SystemUnderTest leaves them to loadgen.
//
// The contract is shaped by the six v0.6 models, not by one of them:
//   - several quality targets that must all be reached (Mask R-CNN: box and
//     mask mAP) -> WorkloadDescription::targets is a list, and EvalLogging
//     says how their values are written as eval_accuracy's value (a scalar
//     for one target; Google's [box, mask] list or NVIDIA's
//     {"accuracy": {"BBOX", "SEGM"}} dict for Mask R-CNN);
//   - evaluation at fixed epochs (SSD) or every N epochs with an offset
//     (ResNet) -> EvalCadence; MiniGo maps a generation (self-play, train)
//     onto an "epoch" and its evaluation games' win rate onto a metric, and
//     evaluates BESIDE training (EvalCadence::beside_training);
//   - MLPerf keys only one model logs (MiniGo's save_model and eval_result,
//     Mask R-CNN's num_image_candidates) -> WorkloadEvent, which the harness
//     stamps with its emulated clock and writes through its own writer;
//   - a time to train that ends before run_stop (MiniGo: at the model that
//     won) -> WorkloadDescription::run_end;
//   - spatial partitioning (SSD, Mask R-CNN), weight-update sharding
//     (Transformer), distributed batch-norm groups, the gradient dtype and
//     all-reduce -> projection::ParallelLayout, decided by the workload per
//     slice; the harness checks it against the slice before anything runs
//     and stores it with the run;
//   - beam search or games as evaluation -> Session::Evaluate returns
//     metrics and the emulated time it took; how is the workload's business.
//
// Registration: a workload is the plugin of a model in the one registry
// (workloads/registry.h), registered from the model's folder.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "topology/rank_group.h"
#include "topology/system.h"
#include "workloads/projection/categories.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projected_run.h"

namespace podbench::workloads {

enum class Mode {
  kFunctional,  // real training at a size one machine finishes, on generated data
  kProjected,   // the full-size model priced by the cost model; no numbers computed
};
const char* ModeName(Mode m);  // "functional" / "projected"

// A pod slice as the harness resolved it ("tpu-v3-32": 32 cores, 16 chips).
struct SliceInfo {
  std::string name;
  int64_t cores = 0;
  int64_t chips = 0;
};

// ---------------------------------------------------------------- hyperparameters

// A hyperparameter value; its alternative is the hyperparameter's type.
using HpValue = std::variant<int64_t, double, bool, std::string>;
std::string HpToString(const HpValue& v);

struct HyperparameterSpec {
  // The name users pass to --set and, when `log` is true, the MLPerf key it
  // is logged under (e.g. "global_batch_size", "opt_base_learning_rate").
  std::string name;
  HpValue default_value;  // also fixes the type
  // Inclusive numeric bounds: what the v0.6 closed division allows, or what
  // is meaningful at all (a batch of 0 is meaningless).
  std::optional<double> min, max;
  std::vector<std::string> choices;  // allowed values of a string hyperparameter
  // False: the v0.6 closed division fixes the value to the reference's;
  // any other value is refused.
  bool tunable = true;
  bool log = true;  // written to the log under its name
  std::string rule;  // why it is constrained (quoted when a value is refused)
  std::string help;  // one line, listed when --set names no hyperparameter
  // A string hyperparameter holding a comma-separated list of integers
  // ("30,60,80"), strictly ascending, each within [min, max]; logged as a
  // JSON list (e.g. opt_learning_rate_decay_boundary_epochs).
  bool int_list = false;
  // The hyperparameter belongs to one choice of another: it applies only
  // while hyperparameter `name` has `value` (the lars_* ones only with
  // opt_name=lars). When it does not apply it is not logged and keeps its
  // default; a --set of it is refused, a preset's value dropped.
  struct Condition {
    std::string name;
    HpValue value;
  };
  std::optional<Condition> only_when;
};

// A spec with its name, default and help; the other fields keep their
// defaults for the caller to set.
HyperparameterSpec Spec(std::string name, HpValue def, std::string help);

// Appends `spec` to `specs` as a hyperparameter that is not an MLPerf key (an
// emulated-backend technique, an ablation, a functional-mode size): never
// logged. Returns the appended spec for the caller to constrain further;
// the reference is valid until `specs` next grows.
HyperparameterSpec& AddUnlogged(std::vector<HyperparameterSpec>& specs, HyperparameterSpec spec);
// An unlogged integer hyperparameter with inclusive bounds [lo, hi].
HyperparameterSpec& AddUnloggedInt(std::vector<HyperparameterSpec>& specs, std::string name, int64_t def, double lo,
                                   double hi, std::string help);
// The two evaluation ablations of every projected workload, both true by
// default and unlogged: projected_eval (false: evaluation taken as free) and
// distributed_eval (false: only one host's cores evaluate while the others
// wait). `each_replica` says what every replica does, e.g. "every replica
// evaluates", "every core decodes its share".
void AddEvalAblations(std::vector<HyperparameterSpec>& specs, std::string_view each_replica);

// The integers of an int_list value. InvalidArgument naming `name` when the
// text is not a comma-separated, strictly ascending list of integers.
Result<std::vector<int64_t>> ParseIntList(const std::string& name, const std::string& text);

// The effective hyperparameters of a run: validated, immutable.
class Hyperparameters {
 public:
  Hyperparameters() = default;
  explicit Hyperparameters(std::map<std::string, HpValue> values) : values_(std::move(values)) {}
  // REQUIRES: `name` declared with the matching type (asserted).
  int64_t Int(const std::string& name) const;
  double Float(const std::string& name) const;  // int hyperparameters convert
  bool Bool(const std::string& name) const;
  const std::string& String(const std::string& name) const;
  const std::map<std::string, HpValue>& values() const { return values_; }
  // Whether `spec` applies with these values (its only_when holds).
  bool Applies(const HyperparameterSpec& spec) const;

 private:
  const HpValue& Get(const std::string& name) const;
  std::map<std::string, HpValue> values_;
};

// The hyperparameter values one published configuration ran with, by name.
using PublishedSchedule = std::vector<std::pair<std::string, HpValue>>;

// Projected mode takes its convergence from published runs, so a value they
// did not run with would be logged without changing what is projected. Ok
// when `hp` holds every value of one of `schedules` (those published at
// global batch `batch`; doubles equal to 1e-9 relative). Otherwise
// InvalidArgument naming the first differing value and quoting every
// schedule as --set items; with no schedule, naming the batch and the
// published `batches` (e.g. "512 and 2048"). `source` says what the
// convergence is, e.g. "the evaluations to 25.0 BLEU from Google's v0.6
// Transformer runs".
Status CheckPublishedSchedule(const Hyperparameters& hp, int64_t batch, std::string_view source,
                              std::string_view batches, const std::vector<PublishedSchedule>& schedules);

// ---------------------------------------------------------------- description

struct QualityTarget {
  std::string metric;       // e.g. "top1", "box_map", "mask_map", "bleu", "win_rate"
  double target = 0;        // v0.6 target, e.g. 0.759
  bool higher_is_better = true;
  bool Reached(double v) const { return higher_is_better ? v >= target : v <= target; }
};

// How an evaluation's metrics are written as the value of eval_accuracy.
enum class EvalValueShape {
  // The one target's value, as every single-metric v0.6 log writes it
  // (ResNet: 0.7591). REQUIRES: exactly one target.
  kScalar,
  // The targets' values in the order `targets` lists them: Google's v0.6
  // Mask R-CNN logs [box mAP, mask mAP].
  kList,
  // {name: value, ...} in `targets` order (names from EvalLogging::names),
  // nested under EvalLogging::dict_key when that is set: NVIDIA's v0.6
  // Mask R-CNN logs {"accuracy": {"BBOX": box mAP, "SEGM": mask mAP}}.
  kDict,
};

struct EvalLogging {
  EvalValueShape shape = EvalValueShape::kScalar;
  // kDict only: the key the metrics are nested under; empty = not nested.
  std::string dict_key;
  // kDict only: the key of each target's value, in `targets` order; empty =
  // the targets' metric names.
  std::vector<std::string> names;

  // The key of targets[i] in a dict. REQUIRES: i < targets.size() and names
  // empty or of that size.
  const std::string& NameOf(const std::vector<QualityTarget>& targets, size_t i) const {
    return names.empty() ? targets[i].metric : names[i];
  }
};

// When evaluations happen, in epochs (1-based, as v0.6 logs number them). A
// block is the training between two evaluations.
struct EvalCadence {
  // Every `every` epochs starting at `first` (ResNet: every 4, first 4) ...
  int64_t every = 1;
  int64_t first = 1;
  // ... unless `at_epochs` is non-empty: exactly these (SSD: 33, 44, 49, ...).
  std::vector<int64_t> at_epochs;
  // The run is aborted after this many epochs without reaching the targets.
  int64_t max_epochs = 100;
  // False (default): training waits while the model is evaluated, and each
  // block is logged as block_start, its epochs, the evaluation, block_stop.
  // True: evaluation runs beside training, on resources of its own (MiniGo:
  // the evaluation games of generation g are played while g+1 trains). The
  // evaluation after epoch e starts when e's training ends, or when the
  // previous evaluation ends if that is later, and training goes straight on
  // with e+1; once an evaluation reaches every target no further training is
  // run. No block_start/block_stop are logged, as in the v0.6 MiniGo logs.
  bool beside_training = false;

  // The epochs at which evaluations happen, up to max_epochs, ascending.
  std::vector<int64_t> EvalEpochs() const;
};

// Where a run's time to train ends (run_start is always its start).
enum class RunEnd {
  // At run_stop, once an evaluation reaches every target (every v0.6
  // benchmark but MiniGo).
  kRunStop,
  // When the training that made the winning model ended: the end of the
  // epoch whose evaluation reached every target, or the save inside it that
  // BlockResult::model_saved_offset_s gives. v0.6 scores MiniGo so (to
  // eval_result's metadata.timestamp, the winning model's save time), which
  // precedes run_stop by the evaluation that found it. The workload logs
  // that time through a WorkloadEvent with end_time_field set.
  kWinningModel,
};

// A line a workload adds to its MLPerf log under a key the harness does not
// write itself: MiniGo's save_model and eval_result, Mask R-CNN's
// num_image_candidates. The workload says WHAT and WHERE in the run; the
// harness stamps it with the emulated clock, adds the writer's file/lineno
// metadata and writes it through its reporters, as it writes its own lines.
// A workload never writes a log line.
//
// Where it is logged depends on who returns it:
//   - WorkloadDescription::init_events: between init_start and init_stop,
//     after the logged hyperparameters, in order;
//   - BlockResult::events: inside epoch `epoch` of the block, right after its
//     epoch_start (at_epoch_end false), right before its epoch_stop (true),
//     or at an offset into it (AtEpochOffset);
//   - EvalResult::events: right after that evaluation's eval_accuracy.
// The harness refuses (Internal, naming the workload and key) a key it
// writes itself (submission_*, cache_clear, init_*, run_*, block_*, epoch_*,
// eval_start/stop/accuracy, a logged hyperparameter), a key that is not
// letters, digits and '_', metadata that is not a dict or holds "file" or
// "lineno", and an epoch outside the block. MiniGo's:
//   WorkloadEvent("save_model", {{"iteration", g}}).AtEpochOffset(g, save_s)
//   WorkloadEvent("eval_result", nullptr, {{"iteration", g}}).EndTimeIn("timestamp")
struct WorkloadEvent {
  WorkloadEvent() = default;
  explicit WorkloadEvent(std::string key_, nlohmann::json value_ = nullptr,
                         nlohmann::json metadata_ = nlohmann::json::object())
      : key(std::move(key_)), value(std::move(value_)), metadata(std::move(metadata_)) {}
  // BlockResult::events: logged in epoch `e`, right after its epoch_start
  // or right before its epoch_stop.
  WorkloadEvent& AtEpochStart(int64_t e) {
    epoch = e;
    at_epoch_end = false;
    epoch_offset_s.reset();
    return *this;
  }
  WorkloadEvent& AtEpochEnd(int64_t e) {
    epoch = e;
    at_epoch_end = true;
    epoch_offset_s.reset();
    return *this;
  }
  // BlockResult::events: logged in epoch `e` at `seconds` emulated seconds
  // after its epoch_start, in [0, the epoch's length] (else the harness
  // refuses it: Internal), after the epoch_start events.
  WorkloadEvent& AtEpochOffset(int64_t e, double seconds) {
    epoch = e;
    epoch_offset_s = seconds;
    return *this;
  }
  // EvalResult::events: see end_time_field.
  WorkloadEvent& EndTimeIn(std::string field) {
    end_time_field = std::move(field);
    return *this;
  }

  std::string key;
  // Any JSON value; integers and floats stay distinct, as Python's json
  // (and so the MLPerf checkers) keeps them.
  nlohmann::json value;
  nlohmann::json metadata = nlohmann::json::object();  // a dict
  // BlockResult::events only: the epoch it is logged in, and where.
  int64_t epoch = 0;
  bool at_epoch_end = true;
  std::optional<double> epoch_offset_s;  // set: logged there, at_epoch_end unused
  // EvalResult::events only, of the evaluation that reaches every target of
  // a RunEnd::kWinningModel workload: when set, the harness writes the run's
  // end time into metadata[end_time_field], in seconds after run_start at
  // the log's millisecond resolution (MiniGo's eval_result "timestamp").
  std::string end_time_field;
};

struct DataSpec {
  std::string name;             // e.g. "imagenet", "generated_gratings"
  int64_t train_examples = 0;   // per epoch
  int64_t eval_examples = 0;    // per evaluation
};

struct ModelSpec {
  std::string name;             // e.g. "resnet50_v1.5"
  int64_t parameters = 0;
  double train_flops_per_example = 0;  // forward + backward
};

// What a run is. The harness validates it (Validate) before anything runs,
// stores model, data and parallelism with the run (`podbench show`), logs
// the targets' values as `eval_logging` says and times the run by `run_end`.
struct WorkloadDescription {
  std::string benchmark;     // the v0.6 submission_benchmark value, e.g. "resnet"
  // True for the MLPerf v0.6 models: the harness checks their logs against
  // the v0.6 rules. False for test vehicles (the toy), whose logs no rules
  // cover.
  bool mlperf_benchmark = true;
  int64_t global_batch = 0;
  DataSpec data;
  ModelSpec model;
  // How the model is laid on the slice. REQUIRES (checked by Validate):
  // parallelism.Validate(slice.cores), i.e. replicas x cores_per_replica is
  // the slice's cores.
  projection::ParallelLayout parallelism;
  std::vector<QualityTarget> targets;  // all must be reached
  EvalLogging eval_logging;
  EvalCadence cadence;
  // Functional mode: the host memory a run is estimated to need at its peak
  // (data, activations, weights, optimizer state), in bytes; 0 = not
  // estimated. The harness refuses a run that would not fit the machine.
  int64_t host_memory_bytes = 0;
  RunEnd run_end = RunEnd::kRunStop;
  std::vector<WorkloadEvent> init_events;  // see WorkloadEvent

  // InvalidArgument naming the field unless: benchmark is set; global_batch
  // >= 1; there is at least one target, with distinct non-empty metrics;
  // eval_logging fits the targets (kScalar: exactly one; kDict: one distinct
  // name per target; names and dict_key only with kDict); the cadence is well
  // formed and evaluates at least once within max_epochs;
  // parallelism.Validate(slice.cores) passes.
  Status Validate(const SliceInfo& slice) const;
};

// ---------------------------------------------------------------- execution

// Emulated TPU-v3 seconds, summed over the steps of a block, in the
// projection layer's categories (workloads/projection/categories.h): the
// time of ops bound by the MXU, the vector unit and HBM; gradient
// summation (collectives_s), halo exchanges, batch-norm statistics, the
// optimizer, host input the device waits for, and cores idling.
struct TimeBreakdown {
  double mxu_s = 0, vector_s = 0, hbm_s = 0, collectives_s = 0, halo_s = 0, bn_sync_s = 0, optimizer_s = 0,
         input_s = 0, idle_s = 0;
  double compute_s() const { return mxu_s + vector_s + hbm_s; }
  double total_s() const {
    return compute_s() + collectives_s + halo_s + bn_sync_s + optimizer_s + input_s + idle_s;
  }
  TimeBreakdown& operator+=(const TimeBreakdown& o);
  // `steps` steps of a step priced as `step`.
  static TimeBreakdown Of(const projection::CategoryTimes& step, double steps);
  // The inverse: one step's categories, of `steps` (> 0) summed here.
  projection::CategoryTimes PerStep(double steps) const;
};

struct BlockResult {
  int64_t steps = 0;
  TimeBreakdown time;  // emulated cost of the block's training steps
  // Training diverged (a non-finite loss or weight): the block stopped early
  // and the run ends after this block's evaluation, aborted (a run that fails
  // to converge, not an error).
  bool diverged = false;
  std::vector<WorkloadEvent> events;  // logged inside the block's epochs
  // When the model Evaluate scores (the block's last epoch's) was saved, in
  // emulated seconds after that epoch's start, in [0, its length]; unset:
  // at its end. A RunEnd::kWinningModel run ends there (MiniGo saves its
  // model before gating it, minigo-v0.6-loop.md §2).
  std::optional<double> model_saved_offset_s;
  // Functional mode: the mean training loss over the block's steps, where the
  // workload computes one (not logged: MLPerf logs no training loss; tests
  // use it to see that a hyperparameter changed the training). NaN: none.
  double mean_loss = std::numeric_limits<double>::quiet_NaN();
};

struct EvalResult {
  std::map<std::string, double> metrics;  // one per QualityTarget::metric
  double emulated_s = 0;                  // emulated cost of the evaluation
  // Empty when the metrics were computed. Otherwise they are modelled, not
  // computed (projected mode), and this says how, in a few words; the log
  // marks the values so (eval_accuracy metadata "modelled").
  std::string modelled;
  std::vector<WorkloadEvent> events;      // logged after its eval_accuracy
};

// A training step done, reported as it ends (RunContext::on_step): the
// epoch it belongs to (1-based), the steps of that epoch done so far
// (1-based) and how many the epoch has.
struct StepDone {
  int64_t epoch = 0;
  int64_t step = 0;
  int64_t steps_per_epoch = 0;
};

// One run of a workload. Calls come from one thread, in order:
// Initialize, then TrainBlock/Evaluate alternating per the cadence (also
// when evaluation runs beside training: Evaluate(e) sees the model as
// TrainBlock left it after epoch e; only the emulated timeline overlaps).
class Session {
 public:
  virtual ~Session() = default;
  // Builds the model and data. Returns the emulated seconds it took (the
  // untimed init_start..init_stop interval).
  virtual Result<double> Initialize() = 0;
  // Trains epochs [first_epoch, first_epoch + epochs) (1-based).
  virtual Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) = 0;
  // Evaluates the model after `epoch`.
  virtual Result<EvalResult> Evaluate(int64_t epoch) = 0;
  // Functional mode: a fingerprint of the model's parameters as they are
  // now (base/hash.h FingerprintOf of their bytes), so tests can compare
  // runs bitwise (e.g. over R ranks and in one process). Unimplemented by
  // default.
  virtual Result<std::string> ParameterFingerprint() const {
    return Status::Unimplemented("this workload does not fingerprint its parameters");
  }
};

struct RunContext {
  SliceInfo slice;
  // The system description the slice comes from (--system, or the built-in
  // TPU-v3): what a projected workload prices with. Never null.
  std::shared_ptr<const topology::SystemSpec> system;
  Mode mode = Mode::kFunctional;
  uint64_t seed = 0;
  Hyperparameters hp;
  WorkloadDescription description;
  // A functional session calls this after every training step, from
  // TrainBlock's thread, so the harness can show progress between
  // evaluations; it only reports (nothing of the run depends on it). Never
  // empty: a no-op unless the harness sets it.
  std::function<void(const StepDone&)> on_step = [](const StepDone&) {};
  // Functional mode: the processes the run's emulated cores are spread over
  // (`mpirun -np R podbench run`): each rank trains only its block of the
  // cores (topology::CoresOfRank) and takes part in every collective; every
  // rank's session must make the same collective calls and return the same
  // results. Null = one process holds every core.
  std::shared_ptr<topology::RankGroup> ranks = nullptr;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::vector<HyperparameterSpec> HyperparameterSpecs() const = 0;
  // Values a named preset sets for `slice` (e.g. Google's v0.6 submission).
  // NotFound for an unknown preset; InvalidArgument for a slice it has no
  // values for.
  virtual Result<std::map<std::string, HpValue>> Preset(std::string_view preset,
                                                        const SliceInfo& slice) const;
  // Constraints across hyperparameters and the slice (e.g. the batch must
  // split evenly over the replicas). InvalidArgument naming the field.
  virtual Status Validate(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const;
  // The description of a run in `mode`. REQUIRES: Validate(hp, slice, mode)
  // passed.
  virtual Result<WorkloadDescription> Describe(const Hyperparameters& hp, const SliceInfo& slice,
                                               Mode mode) const = 0;
  virtual Result<std::unique_ptr<Session>> Start(const RunContext& ctx) const = 0;

  // Projected mode, priced by the shared composition (projected_runs.h,
  // projection/projected_run.h). The step `hp` sets on `slice`: the
  // full-size graph, its layout and pricing options (`podbench model` prices
  // a preset's step with this same function); and the rest of the run: its
  // training schedule, evaluation, published convergence, modelled curve and
  // init line. REQUIRES for a run: Validate(hp, slice, kProjected) passed.
  // Unimplemented by default (a workload without a projected mode).
  virtual Result<projection::StepSpec> ProjectedStep(const Hyperparameters& hp, const SliceInfo& slice) const;
  virtual Result<projection::RunPlan> ProjectedPlan(const Hyperparameters& hp, const SliceInfo& slice) const;
};

// Resolves the effective hyperparameters: declared defaults, then `preset`
// values, then `overrides` ("key=value" as given to --set), each checked
// against its spec. Errors name the offending --set item or preset key.
Result<Hyperparameters> ResolveHyperparameters(const std::vector<HyperparameterSpec>& specs,
                                               const std::map<std::string, HpValue>& preset,
                                               const std::vector<std::string>& overrides,
                                               const std::string& workload);

}  // namespace podbench::workloads
