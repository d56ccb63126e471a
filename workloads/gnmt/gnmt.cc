// "gnmt": MLPerf v0.6 GNMT translation, target 24.0 uncased SacreBLEU.
//
// Projected mode is the shared composition (workloads/projected_runs.h) of
// what gnmt_projection.h gives it: the full-size GNMT (gnmt_graph.h, 164.8 M
// parameters) in epochs of int(3,442,299 / B) steps, its training step the
// MODELLED length-bucket mix, fed by Google's one or two infeed hosts, each
// epoch followed by a 160-step beam-5 decode of newstest2014 on the device
// and BLEU on the host, overlapped with the next epoch. How many epochs a
// run takes to 24.0 BLEU is drawn with the run's seed from Google's v0.6
// logs (GnmtConvergenceTable); the BLEU values it logs are a modelled curve,
// not a computation (submission_entry says mode "projected"). Facts and
// their sources: ../shared/reference/gnmt-v0.6.md ("§" below).
//
// Functional mode trains a small GNMT for real on the generated language
// pair (gnmt_functional_session.h): its pieces join the plugin below, in the
// blocks marked FUNCTIONAL MODE.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/claims.h"
#include "workloads/functional/parallel_hyperparameters.h"
#include "workloads/gnmt/gnmt_functional_session.h"
#include "workloads/gnmt/gnmt_google_v06.h"
#include "workloads/gnmt/gnmt_graph.h"
#include "workloads/gnmt/gnmt_projection.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

using gnmt::GnmtGoogleV06Slice;
using gnmt::GnmtGoogleV06Slices;

// What the MLPerf 0.6.0 gnmt rules require of the two schedule-shape keys
// (training_0.6.0/gnmt.yaml: CHECK type(v['value']) == bool, §6).
const char* const kBoolKeyRule =
    "the official MLPerf 0.6.0 gnmt rules (training_0.6.0/gnmt.yaml) require a boolean; Google's v0.6 logs wrote "
    "the strings \"True\" and \"t2t\" here and fail that check";

// Projected mode has convergence data only for Google's v0.6 runs (the
// epochs each run took, per slice): Adam with the learning rate, t2t warmup
// and four halvings of the run script at that global batch (§2). Any other
// value would be logged without changing what is projected, so it is
// refused, quoting the values the data covers. max_sequence_length is not
// among them: its what-if prices the step at another length (the
// convergence stays Google's at 48).
Status CheckProjectedSchedule(const Hyperparameters& hp) {
  const int64_t batch = hp.Int("global_batch_size");
  std::vector<PublishedSchedule> schedules;
  for (const GnmtGoogleV06Slice& row : GnmtGoogleV06Slices()) {
    if (row.global_batch != batch) continue;
    PublishedSchedule s = {{"opt_base_learning_rate", row.learning_rate},
                           {"opt_learning_rate_warmup_steps", row.warmup_steps},
                           {"opt_learning_rate_remain_steps", row.decay_start},
                           {"opt_learning_rate_decay_interval", row.decay_interval},
                           {"opt_learning_rate_decay_factor", gnmt::kGnmtDecayFactor},
                           {"opt_learning_rate_decay_steps", gnmt::kGnmtDecaySteps}};
    if (std::find(schedules.begin(), schedules.end(), s) == schedules.end()) schedules.push_back(std::move(s));
  }
  return CheckPublishedSchedule(hp, batch, "the epochs to 24.0 BLEU from Google's v0.6 GNMT runs", "4096 and 8192",
                                schedules);
}

class GnmtWorkload : public Workload {
 public:
  std::vector<HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<HyperparameterSpec> s;
    // MLPerf v0.6 hyperparameters, logged under their v0.6 keys: the ten
    // the 0.6.0 gnmt rules require exactly once (§6).
    auto& batch = s.emplace_back(Spec("global_batch_size", int64_t{8192},
                                      "sentence pairs per step over the slice (Google v0.6: 4096 on tpu-v3-32, "
                                      "8192 above)"));
    batch.min = 1;
    batch.max = 1 << 20;
    batch.rule = "v0.6 closed division: any constant batch size";
    auto& len = s.emplace_back(Spec("max_sequence_length", int64_t{48},
                                    "training pairs with a longer source or target (subword tokens, <s> and </s> "
                                    "included) are dropped (Google v0.6: 48, §1)"));
    len.min = 16;
    len.max = 256;
    len.rule = "v0.6: sequence models may drop training examples longer than a maximum length";
    auto& lr = s.emplace_back(Spec("opt_base_learning_rate", 0.0045,
                                   "Adam learning rate after the warmup (Google v0.6: 3.5e-3 at batch 4096, 4.5e-3 "
                                   "at 8192)"));
    lr.min = 1e-6;
    lr.max = 1;
    auto& warm = s.emplace_back(Spec("opt_learning_rate_warmup_steps", int64_t{200},
                                     "t2t warmup: lr x 0.01^((warmup - step) / warmup) below it (Google v0.6: 150 "
                                     "/ 200)"));
    warm.min = 1;
    warm.max = 1000000;
    auto& wfn = s.emplace_back(Spec("opt_learning_rate_alt_warmup_func", true,
                                    "the warmup is t2t's exponential one (the only one supported)"));
    wfn.tunable = false;
    wfn.rule = kBoolKeyRule;
    auto& remain = s.emplace_back(Spec("opt_learning_rate_remain_steps", int64_t{1924},
                                       "decay_start: the step the halvings count from (Google v0.6: 4000 / 1924)"));
    remain.min = 1;
    remain.max = 10000000;
    auto& interval = s.emplace_back(Spec("opt_learning_rate_decay_interval", int64_t{241},
                                         "steps between halvings (Google v0.6: 300 / 241)"));
    interval.min = 1;
    interval.max = 10000000;
    auto& factor = s.emplace_back(Spec("opt_learning_rate_decay_factor", gnmt::kGnmtDecayFactor,
                                       "factor of each decay (Google v0.6: 0.5)"));
    factor.min = 1e-3;
    factor.max = 1;
    auto& dsteps = s.emplace_back(Spec("opt_learning_rate_decay_steps", gnmt::kGnmtDecaySteps,
                                       "how many decays, after which the rate stays (Google v0.6: 4)"));
    dsteps.min = 1;
    dsteps.max = 100;
    auto& dfn = s.emplace_back(Spec("opt_learning_rate_alt_decay_func", true,
                                    "the decay is the step-wise halving schedule (the only one supported)"));
    dfn.tunable = false;
    dfn.rule = kBoolKeyRule;
    // Fixed by the reference model and evaluation (not logged; §1, §4).
    auto fixed = [&](const char* name, HpValue value, const char* rule, const char* help) {
      auto& f = s.emplace_back(Spec(name, value, help));
      f.tunable = false;
      f.log = false;
      f.rule = rule;
    };
    fixed("label_smoothing", 0.1, "v0.6 closed division: the reference model's label smoothing, 0.1",
          "label smoothing of the loss");
    fixed("dropout", 0.2, "v0.6 closed division: the reference model's dropout, 0.2", "dropout of the LSTM inputs");
    fixed("max_gradient_norm", gnmt::kGnmtGradientClipNorm,
          "v0.6 closed division: the reference clips each core's gradients to a global norm of 5.0",
          "global-norm gradient clip, per core before the cross-replica sum");
    fixed("eval_beam_size", gnmt::kGnmtBeam,
          "v0.6: evaluation decodes as the reference does, beam 5, length penalty 0.6, coverage penalty 0.1",
          "beam search width of the evaluation");
    fixed("eval_length_penalty", gnmt::kGnmtLengthPenalty,
          "v0.6: evaluation decodes as the reference does, beam 5, length penalty 0.6, coverage penalty 0.1",
          "length penalty ((5 + len) / 6)^w of the evaluation's beam search");
    fixed("eval_coverage_penalty", gnmt::kGnmtCoveragePenalty,
          "v0.6: evaluation decodes as the reference does, beam 5, length penalty 0.6, coverage penalty 0.1",
          "coverage penalty of the evaluation's beam search");
    auto& eb = s.emplace_back(Spec("eval_batch_size", int64_t{4096},
                                   "sentences decoded per evaluation step over the slice (Google v0.6 "
                                   "infer_batch_size: 512 on tpu-v3-32, 4096 above)"));
    eb.min = 1;
    eb.max = 1 << 20;
    eb.log = false;
    auto& max = s.emplace_back(Spec("max_epochs", int64_t{10},
                                    "abort after this many epochs (Google v0.6 max_train_epochs: 8 / 10)"));
    max.min = 1;
    max.max = 200;
    max.log = false;
    // Emulated-backend techniques (not MLPerf hyperparameters): the
    // all-reduce, its dtype and weight-update sharding.
    for (auto& p : functional::DataParallelHyperparameters("Adam")) s.push_back(std::move(p));
    // Projected mode: what-ifs of Google's run (none is an MLPerf
    // hyperparameter).
    AddEvalAblations(s, "every core decodes its share");
    auto& feed = s.emplace_back(Spec("projected_infeed_hosts", int64_t{2},
                                     "projected mode: hosts that each feed the whole global batch to one core, in "
                                     "turn (Google v0.6 num_infeed_workers: 1 on tpu-v3-32, 2 above; 0: every host "
                                     "feeds its own cores, an ablation)"));
    feed.min = 0;
    feed.max = 256;
    feed.log = false;
    AddUnlogged(s, Spec("projected_bucketing", true,
                        "projected mode: one length bucket per global batch, the LSTM loops running "
                        "to its longest pair, weighted by a MODELLED bucket mix (false: every step "
                        "runs to max_sequence_length, an ablation)"));
    AddUnlogged(s, Spec("projected_eval_overlap", true,
                        "projected mode: the device trains the next epoch while the host scores "
                        "BLEU, as Google's runner does (false: training waits for the host's "
                        "scoring, an ablation)"));
    // FUNCTIONAL MODE: the functional_* hyperparameters
    // (gnmt_functional_session.h); the data-parallel switches are above.
    for (auto& p : gnmt::FunctionalHyperparameterSpecs()) s.push_back(std::move(p));
    return s;
  }

  Result<std::map<std::string, HpValue>> Preset(std::string_view preset, const SliceInfo& slice) const override {
    // FUNCTIONAL MODE: the `functional` preset.
    if (preset == "functional") return gnmt::FunctionalPreset();
    if (preset != "google-v0.6") return Status::NotFound("gnmt has no preset '" + std::string(preset) + "'");
    PODBENCH_ASSIGN_OR_RETURN(const GnmtGoogleV06Slice* row,
                              FindSliceRow("gnmt", preset, GnmtGoogleV06Slices(), slice.name, slice.cores));
    // The run scripts' values (§2, gnmt_google_v06.h): batch, Adam's rate,
    // t2t warmup, the four halvings, the decode batch, the epoch budget and
    // the infeed hosts.
    return std::map<std::string, HpValue>{
        {"global_batch_size", row->global_batch},
        {"max_sequence_length", int64_t{48}},
        {"opt_base_learning_rate", row->learning_rate},
        {"opt_learning_rate_warmup_steps", row->warmup_steps},
        {"opt_learning_rate_remain_steps", row->decay_start},
        {"opt_learning_rate_decay_interval", row->decay_interval},
        {"opt_learning_rate_decay_factor", gnmt::kGnmtDecayFactor},
        {"opt_learning_rate_decay_steps", gnmt::kGnmtDecaySteps},
        {"eval_batch_size", row->infer_batch},
        {"max_epochs", row->max_epochs},
        {"projected_infeed_hosts", row->infeed_workers},
        // Two switchable techniques of the emulated backend whose defaults
        // podbench chooses, as for the Transformer, the other
        // large-parameter model (the run scripts set neither: XLA lowered
        // cross_replica_sum and did any sharding itself;
        // google-v0.6-implementation.md section 0): the bidirectional 2-D
        // torus all-reduce and weight-update sharding of Adam.
        {"allreduce", std::string("torus2d_bidir")},
        {"weight_update_sharding", true},
    };
  }

  Status Validate(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    for (const char* key : {"global_batch_size", "eval_batch_size"}) {
      const int64_t b = hp.Int(key);
      if (b % slice.cores != 0) {
        return Status::InvalidArgument(std::string(key) + " " + std::to_string(b) + " does not split evenly over the " +
                                       std::to_string(slice.cores) + " cores of " + slice.name);
      }
    }
    // FUNCTIONAL MODE: its checks.
    if (mode == Mode::kFunctional) PODBENCH_RETURN_IF_ERROR(gnmt::ValidateFunctional(hp, slice));
    if (mode == Mode::kProjected) PODBENCH_RETURN_IF_ERROR(CheckProjectedSchedule(hp));
    return Status::Ok();
  }

  Result<WorkloadDescription> Describe(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    // FUNCTIONAL MODE: the generated data, the small model, its BLEU target.
    if (mode == Mode::kFunctional) return gnmt::DescribeFunctional(hp, slice);
    WorkloadDescription d;
    d.benchmark = "gnmt";
    d.global_batch = hp.Int("global_batch_size");
    d.parallelism = gnmt::StepConfigOf(hp, slice).layout;
    d.cadence.every = 1;
    d.cadence.first = 1;
    d.cadence.max_epochs = hp.Int("max_epochs");
    d.targets = {{"bleu", gnmt::kGnmtTargetBleu, true}};
    gnmt::GnmtGraphOptions o;
    o.train_length = hp.Int("max_sequence_length");
    PODBENCH_ASSIGN_OR_RETURN(projection::ModelGraph g, gnmt::BuildGnmtGraph(o));
    // An epoch of the log is int(3,442,299 / B) steps (§2).
    d.data = {"wmt16_en_de_bpe32k", gnmt::kGnmtTrainPairsPerEpoch / d.global_batch * d.global_batch,
              gnmt::kGnmtEvalSentences};
    d.model = {"gnmt", g.TotalParams(), 6.0 * static_cast<double>(g.ForwardMacs())};
    return d;
  }

  Result<projection::StepSpec> ProjectedStep(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return gnmt::ProjectedStep(hp, slice);
  }
  Result<projection::RunPlan> ProjectedPlan(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return gnmt::ProjectedPlan(hp, slice);
  }

  Result<std::unique_ptr<Session>> Start(const RunContext& ctx) const override {
    // FUNCTIONAL MODE: its session.
    if (ctx.mode == Mode::kFunctional) return gnmt::StartFunctional(ctx);
    return StartProjected(*this, ctx);
  }
};

// The seed papers' claims about GNMT that podbench tests (workloads/claims.h),
// on Google's v0.6 configuration of tpu-v3-1024 (its largest slice, two
// infeed hosts). Each base arm is a what-if of the priced run; none
// changes the convergence (the epochs to 24.0 BLEU stay Google's), only
// what the run costs.
std::vector<ClaimSpec> Claims() {
  auto google = [](std::vector<std::string> sets, std::string label) {
    return ClaimRun{"tpu-v3-1024", "projected", "google-v0.6", std::move(sets), 10, std::move(label)};
  };
  const std::string summarised = " (as the v0.6 submission notes summarise it)";
  return {
      {.id = "gnmt-two-infeed-hosts",
       .paper = "Kumar et al. 2019",
       .section = "input pipeline optimisation" + summarised,
       .words = "GNMT's input: two hosts each build and infeed the whole global batch, in turn, to one core; the "
                "other cores receive zeros and take their share from a cross-replica sum",
       .base = google({"projected_infeed_hosts=0"}, "one pipeline per host, each feeding its own cores"),
       .variant = google({}, "Google's two infeed hosts"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kNoNumber,
       .unit = "x",
       .note = "the time to train with a pipeline per host over Google's two infeed hosts: below 1 means the two "
               "hosts' turns (a whole batch through one host and one chip's PCIe, and the int32 cross-replica sum "
               "that hands it out) cost time; the paper gives no number"},
      {.id = "gnmt-max-sequence-length",
       .paper = "Kumar et al. 2019",
       .section = "reduced maximum sequence length" + summarised,
       .words = "reduced max sequence length for Transformer and GNMT (GNMT: 48 tokens, against the reference "
                "implementation's longer limit)",
       .base = google({"max_sequence_length=75"},
                      "75 tokens (NVIDIA's v0.6 run of the reference GNMT: max_sequence_length 75)"),
       .variant = google({}, "48 tokens (Google's v0.6)"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kPositive,
       .threshold = 1.0,
       .unit = "x",
       .note = "the time to train at 75 over the time at 48, the epochs to target held at Google's: above 1 means "
               "the shorter limit pays (its buckets' loops are shorter and the records smaller); the longer "
               "limit's other effect, more and longer training pairs per epoch, is not modelled"},
      {.id = "gnmt-bucketing",
       .paper = "Kumar et al. 2019",
       .section = "input pipeline optimisation" + summarised,
       .words = "sequences bucketed by length, one bucket per global batch, so the LSTM loops stop at the "
                "bucket's longest sequence",
       .base = google({"projected_bucketing=false"}, "every step runs to max_sequence_length"),
       .variant = google({}, "one length bucket per batch (MODELLED bucket mix)"),
       .measure = ClaimMeasure::kDeviceStepRatio,
       .comparison = ClaimComparison::kPositive,
       .threshold = 1.0,
       .unit = "x",
       .note = "the per-step device time without buckets over the time with them: above 1 means bucketing pays; "
               "the bucket mix is modelled from the length filter (gnmt_projection.h GnmtBucketMix)"},
      {.id = "gnmt-eval-on-device",
       .paper = "Kumar et al. 2019",
       .section = "distributed evaluation and a train/eval loop on the device" + summarised,
       .words = "train and evaluate in one loop on the device: the device decodes, then trains on while the "
                "host scores BLEU, instead of waiting for the host",
       .base = google({"projected_eval_overlap=false"}, "training waits while the host scores each evaluation"),
       .variant = google({}, "the device trains on while the host scores"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kPositive,
       .threshold = 1.0,
       .unit = "x",
       .note = "the time to train with the host's BLEU on the critical path over the time with it overlapped: "
               "above 1 means the device loop pays; the host's scoring is priced at the system file's rate"},
      DistributedEvalClaim("gnmt", google({}, ""), "decodes"),
  };
}

}  // namespace

PODBENCH_REGISTER_MODEL("gnmt")
    ->Plugin<GnmtWorkload>()
    ->Summary("MLPerf v0.6 GNMT translation, BLEU target 24.0 (uncased, intl tokenizer)")
    ->Modes({Mode::kFunctional, Mode::kProjected})
    ->Presets({"google-v0.6", "functional"})
    ->ScoredRuns(10)
    ->Zoo("GNMT, 4+4 LSTM layers of 1024, bidirectional first layer, normalized Bahdanau attention, 32k BPE",
          "parameters: the MLPerf v0.6 reference GNMT, 160,671,297 as NVIDIA's v0.6 log prints it "
          "(fixtures/logs/v0.6/NVIDIA/.../gnmt/result_0.txt), reconciled with Google's TF variant; no published "
          "FLOPs: derived by hand")
    ->Claims(Claims());

}  // namespace podbench::workloads
