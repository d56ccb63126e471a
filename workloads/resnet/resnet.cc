// "resnet": MLPerf v0.6 ResNet-50 v1.5 on the emulated TPU-v3 pod, the
// model's registration and its workload plugin: hyperparameters with their
// closed-division rules, presets, cross-field checks and the run's
// description. The modes live beside it: resnet_projected.h (what the shared
// composition needs of the full-size network), resnet_session.h (functional
// training), with the data (resnet_input.h), the learning-rate schedule
// (resnet_lr.h) and the functional sizes (resnet_sizing.h).
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/claims.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"
#include "workloads/resnet/google_v06.h"
#include "workloads/resnet/resnet_graph.h"
#include "workloads/resnet/resnet_projected.h"
#include "workloads/resnet/resnet_session.h"
#include "workloads/resnet/resnet_sizing.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

using resnet::GoogleV06ConfigFor;

constexpr int64_t kTrainImages = resnet::kImageNetTrainImages;
constexpr int64_t kEvalImages = resnet::kImageNetEvalImages;
constexpr double kTarget = resnet::kTop1Target;
constexpr int64_t kEvalEveryEpochs = resnet::kEvalEveryEpochs;
// Functional mode's default top-1 target on the generated 12-class set
// (hyperparameter functional_target; docs/models/resnet.md gives the
// measured time to reach it).
constexpr double kFunctionalTarget = 0.98;
// Functional global batches above this are ImageNet-scale values by mistake.
constexpr int64_t kMaxFunctionalBatch = 4096;
// The functional preset's peak LARS learning rate and epochs budget.
constexpr double kFunctionalLr = 8.0;
constexpr int64_t kFunctionalEpochs = 24;

class ResNetWorkload : public Workload {
 public:
  std::vector<HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<HyperparameterSpec> s;
    // Every numeric bound keeps the arithmetic defined: a batch of at most one
    // epoch keeps per-core FLOP and byte counts far inside int64.
    auto& batch = s.emplace_back(Spec("global_batch_size", int64_t{32768}, "images per step over the slice"));
    batch.min = 1;
    batch.max = static_cast<double>(kTrainImages);
    batch.rule = "v0.6 closed division: any constant batch size, at most one epoch of ImageNet (1,281,167 images)";
    auto& span = s.emplace_back(Spec("model_bn_span", int64_t{128},
                                     "images over which batch-norm statistics are computed"));
    span.min = 1;
    span.max = static_cast<double>(kTrainImages);
    auto& opt = s.emplace_back(Spec("opt_name", std::string("lars"), "optimizer: lars, or momentum sgd"));
    opt.choices = {"lars", "sgd"};
    opt.rule = "v0.6 closed division: momentum SGD, or the LARS package";
    const HyperparameterSpec::Condition lars{"opt_name", std::string("lars")};
    const HyperparameterSpec::Condition sgd{"opt_name", std::string("sgd")};
    auto& wd = s.emplace_back(Spec("lars_opt_weight_decay", 1e-4, "LARS: L2 weight decay"));
    wd.min = 0;
    wd.max = 1e-2;
    wd.only_when = lars;
    auto& eps = s.emplace_back(Spec("lars_epsilon", 1e-5, "LARS: added to the trust ratio's denominator"));
    eps.min = 0;
    eps.max = 1;
    eps.only_when = lars;
    auto& lr = s.emplace_back(Spec("opt_base_learning_rate", 31.2, "peak learning rate"));
    lr.min = 1e-6;
    lr.max = 1000;
    auto& warm = s.emplace_back(Spec("opt_learning_rate_warmup_epochs", int64_t{25}, "linear warmup"));
    warm.min = 0;
    warm.max = 90;
    auto& end = s.emplace_back(Spec("lars_opt_end_learning_rate", 1e-4, "LARS: learning rate at the end of decay"));
    end.min = 0;
    end.max = 1000;
    end.only_when = lars;
    auto& steps = s.emplace_back(Spec("lars_opt_learning_rate_decay_steps", int64_t{2007},
                                      "LARS: steps from the start to the end of the polynomial decay"));
    steps.min = 1;
    steps.max = 1e9;
    steps.only_when = lars;
    auto& power = s.emplace_back(Spec("lars_opt_learning_rate_decay_poly_power", 2.0, "LARS: polynomial decay power"));
    power.tunable = false;
    power.only_when = lars;
    power.rule = "v0.6: LARS is allowed only as a package with power-2 polynomial decay";
    auto& bounds = s.emplace_back(Spec("opt_learning_rate_decay_boundary_epochs", std::string("30,60,80"),
                                       "momentum SGD: epochs after which the rate is divided by 10"));
    bounds.int_list = true;
    bounds.min = 1;
    bounds.max = 200;
    bounds.only_when = sgd;
    auto& ls = s.emplace_back(Spec("label_smoothing", 0.1, "label smoothing of the loss (LARS; momentum SGD: none)"));
    ls.tunable = false;
    ls.log = false;
    ls.only_when = lars;
    ls.rule = "v0.6: the LARS package fixes label smoothing at 0.1";
    auto& max = s.emplace_back(Spec("max_epochs", int64_t{88}, "abort after this many epochs"));
    max.min = 4;
    max.max = 200;
    max.log = false;
    // Emulated-backend techniques (not MLPerf hyperparameters): switches
    // for the ablations of the seed papers.
    auto& ar = s.emplace_back(Spec("allreduce", std::string("torus2d"), "gradient summation algorithm"));
    ar.choices = {"ring", "ring_bidir", "torus2d", "torus2d_pipelined", "torus2d_bidir"};
    ar.log = false;
    AddUnlogged(s, Spec("distributed_bn", true, "batch-norm statistics over model_bn_span images"));
    AddUnlogged(s, Spec("weight_update_sharding", false,
                        "reduce-scatter gradients, update 1/N of the weights, all-gather"));
    AddUnlogged(s, Spec("cache_decoded_image", false,
                        "host input pipeline caches decoded images: the first epoch decodes "
                        "every image in full, later epochs crop from memory"));
    AddEvalAblations(s, "every replica evaluates");
    // Functional mode: the network and data this machine trains.
    auto fnum = [&](const char* name, int64_t def, double lo, double hi, const char* help) {
      AddUnloggedInt(s, name, def, lo, hi, help);
    };
    fnum("functional_image_size", 32, 32, 512, "functional mode: image side in pixels");
    fnum("functional_width", 8, 1, 128, "functional mode: stem channels (ResNet-50: 64)");
    fnum("functional_classes", 12, 2, 48, "functional mode: classes of the generated dataset");
    fnum("functional_train_examples", 4096, 1, 1 << 22, "functional mode: generated training images (one epoch)");
    fnum("functional_eval_examples", 1024, 1, 1 << 20, "functional mode: held-out generated images");
    AddUnlogged(s, Spec("functional_blocks", std::string("1,1,1,1"),
                        "functional mode: bottlenecks per stage (ResNet-50: 3,4,6,3)"));
    auto& fp = s.emplace_back(Spec("functional_precision", std::string("bf16"),
                                   "functional mode: convolution precision (bf16 MXU contract or fp32)"));
    fp.choices = {"bf16", "fp32"};
    fp.log = false;
    auto& ft = s.emplace_back(Spec("functional_target", kFunctionalTarget,
                                   "functional mode: top-1 quality target on the held-out generated images"));
    ft.min = 0.759;  // the v0.6 rules check every ResNet log against MLPerf's 0.759
    ft.max = 1.0;
    ft.log = false;
    AddUnlogged(s, Spec("functional_flip", true, "functional mode: random horizontal flips"));
    auto& in = s.emplace_back(Spec("input", std::string("memory"),
                                   "functional mode: training images from memory, or from a JPEG folder tree "
                                   "through the host input pipeline (decode, random crop, flip, prefetch)"));
    in.choices = {"memory", "jpeg"};
    in.log = false;
    AddUnlogged(s, Spec("functional_data_dir", std::string(""),
                        "input=jpeg: cache folder of the JPEG tree (empty: <temp>/podbench-data)"));
    fnum("functional_input_threads", 2, 0, 64, "input=jpeg: decode and augment threads (0: one per host core)");
    return s;
  }

  Result<std::map<std::string, HpValue>> Preset(std::string_view preset,
                                                const SliceInfo& slice) const override {
    if (preset == "functional") {
      // Functional mode's tuned values: 128 images per step, batch-norm
      // statistics over 32 images, 32 steps per epoch of the default set.
      const int64_t steps_per_epoch = 4096 / 128;
      return std::map<std::string, HpValue>{
          {"global_batch_size", int64_t{128}},
          {"model_bn_span", int64_t{128 / slice.cores * std::min<int64_t>(2, slice.cores)}},
          {"opt_base_learning_rate", kFunctionalLr},
          {"opt_learning_rate_warmup_epochs", int64_t{1}},
          {"lars_opt_end_learning_rate", 1e-3},
          {"lars_opt_learning_rate_decay_steps", kFunctionalEpochs * steps_per_epoch},
          {"lars_opt_weight_decay", 1e-4},
          {"max_epochs", kFunctionalEpochs},
      };
    }
    if (preset != "google-v0.6") return Status::NotFound("resnet has no preset '" + std::string(preset) + "'");
    auto c = GoogleV06ConfigFor(slice.name);
    if (!c) {
      return Status::InvalidArgument("preset google-v0.6 has no resnet configuration for " + slice.name +
                                     " (it has tpu-v3-32 to tpu-v3-2048)");
    }
    return std::map<std::string, HpValue>{
        {"global_batch_size", c->global_batch},
        {"model_bn_span", c->per_core_batch * c->bn_group},
        {"opt_name", std::string("lars")},
        {"lars_opt_weight_decay", c->weight_decay},
        {"lars_epsilon", c->lars_epsilon},
        {"opt_base_learning_rate", c->base_lr},
        {"opt_learning_rate_warmup_epochs", static_cast<int64_t>(c->warmup_epochs)},
        {"lars_opt_end_learning_rate", c->end_lr},
        {"lars_opt_learning_rate_decay_steps", c->decay_steps},
        {"cache_decoded_image", c->cache_decoded_image},
    };
  }

  Status Validate(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    const int64_t b = hp.Int("global_batch_size");
    if (mode == Mode::kProjected) PODBENCH_RETURN_IF_ERROR(resnet::CheckProjectedOptimizer(hp));
    if (mode == Mode::kFunctional) {
      if (b > kMaxFunctionalBatch) {
        return Status::InvalidArgument("global_batch_size " + std::to_string(b) +
                                       " is an ImageNet-scale batch; functional mode trains a small network "
                                       "on generated images: use --preset functional or --set "
                                       "global_batch_size=N with N <= " + std::to_string(kMaxFunctionalBatch));
      }
      PODBENCH_RETURN_IF_ERROR(resnet::FunctionalNet(hp).status());
      if (hp.Int("functional_train_examples") < b) {
        return Status::InvalidArgument("functional_train_examples " + std::to_string(hp.Int("functional_train_examples")) +
                                       " is smaller than one global batch (" + std::to_string(b) + ")");
      }
    }
    if (b % slice.cores != 0) {
      return Status::InvalidArgument("global_batch_size " + std::to_string(b) + " does not split evenly over the " +
                                     std::to_string(slice.cores) + " cores of " + slice.name);
    }
    const int64_t per_core = b / slice.cores;
    const int64_t span = hp.Int("model_bn_span");
    if (span % per_core != 0 || slice.cores % (span / per_core) != 0) {
      return Status::InvalidArgument("model_bn_span " + std::to_string(span) +
                                     " must be a whole number of replicas' batches (" +
                                     std::to_string(per_core) + " images each) that divides the " +
                                     std::to_string(slice.cores) + " replicas");
    }
    return Status::Ok();
  }

  Result<WorkloadDescription> Describe(const Hyperparameters& hp, const SliceInfo& slice,
                                       Mode mode) const override {
    WorkloadDescription d;
    d.benchmark = "resnet";
    d.global_batch = hp.Int("global_batch_size");
    const bool functional = mode == Mode::kFunctional;
    resnet::ResNetConfig net = resnet::ResNetConfig::ResNet50();
    if (functional) {
      PODBENCH_ASSIGN_OR_RETURN(net, resnet::FunctionalNet(hp));
      d.data = {hp.String("input") == "jpeg" ? "generated_gratings_jpeg" : "generated_gratings",
                hp.Int("functional_train_examples"), hp.Int("functional_eval_examples")};
    } else {
      d.data = {"imagenet", kTrainImages, kEvalImages};
    }
    auto layers = resnet::BuildResNet(net);
    d.model = {functional ? "resnet_v1.5_functional" : "resnet50_v1.5", resnet::TotalParams(layers),
               6.0 * static_cast<double>(resnet::TotalMacs(layers))};
    d.parallelism = resnet::StepConfigOf(hp, slice).layout;
    d.targets = {{"top1", functional ? hp.Float("functional_target") : kTarget, true}};
    d.cadence.every = kEvalEveryEpochs;
    d.cadence.first = kEvalEveryEpochs;
    d.cadence.max_epochs = hp.Int("max_epochs");
    if (functional) d.host_memory_bytes = resnet::FunctionalHostBytes(layers, hp, slice);
    return d;
  }

  Result<projection::StepSpec> ProjectedStep(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return resnet::ProjectedStep(hp, slice);
  }
  Result<projection::RunPlan> ProjectedPlan(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return resnet::ProjectedPlan(hp, slice);
  }

  Result<std::unique_ptr<Session>> Start(const RunContext& ctx) const override {
    if (ctx.mode == Mode::kProjected) return StartProjected(*this, ctx);
    return resnet::StartFunctionalSession(ctx);
  }
};

// The published figures `podbench calibrate` fits to, medians over Google's
// five runs' logs (google_v06.h): the 4-epoch block with its evaluation at
// tpu-v3-32 and tpu-v3-2048, the first block's extra over it on every slice,
// and that tpu-v3-32 was not input-bound.
std::vector<projection::CalibrationPoint> CalibrationPoints() {
  std::vector<projection::CalibrationPoint> points;
  for (const char* slice : {"tpu-v3-32", "tpu-v3-2048"}) {
    points.push_back({slice, projection::CalibrationKind::kBlock, GoogleV06ConfigFor(slice)->published_block_s,
                      "median gap between evaluations (4 epochs and an evaluation), Google's 5 v0.6 runs' logs"});
  }
  for (const resnet::GoogleV06Config& c : resnet::GoogleV06Configs()) {
    points.push_back({std::string(c.slice), projection::CalibrationKind::kFirstBlockExtra,
                      c.published_first_block_extra_s,
                      "first block (run_start to the first evaluation) over the median block, 5 runs' logs"});
  }
  points.push_back({"tpu-v3-32", projection::CalibrationKind::kInputBound, 0,
                    "Google's runs were not input-bound (their steps match the device's)"});
  return points;
}

// The seed papers' claims about ResNet-50 that podbench tests
// (workloads/claims.h). Projected arms run Google's v0.6 configuration on
// the full pod with one switch changed; the functional ones train the
// functional ResNet on this machine (the settings that show the effect, or
// not, in about a minute: docs/models/resnet.md gives the runs).
std::vector<ClaimSpec> Claims() {
  using M = ClaimMeasure;
  using C = ClaimComparison;
  auto projected = [](std::vector<std::string> sets, std::string label) {
    return ClaimRun{"tpu-v3-2048", "projected", "google-v0.6", std::move(sets), 5, std::move(label)};
  };
  auto functional = [](std::vector<std::string> sets, std::vector<std::string> more, std::string label) {
    sets.insert(sets.end(), more.begin(), more.end());
    return ClaimRun{"tpu-v3-8", "functional", "functional", std::move(sets), 3, std::move(label)};
  };
  const std::string abstract = "abstract";
  const std::string summarised = " (as the v0.6 submission notes summarise it)";
  // Ying et al.: small per-replica batches need batch-norm statistics over
  // several replicas: 4 images a core on 8 cores, 48 classes, 4 epochs.
  const std::vector<std::string> small_batch = {"functional_classes=48", "global_batch_size=32", "model_bn_span=32",
                                                "max_epochs=4", "opt_base_learning_rate=16",
                                                "lars_opt_learning_rate_decay_steps=512", "functional_target=1"};
  // LARS against momentum SGD at a large global batch, each with its own
  // tuned schedule.
  const std::vector<std::string> large_batch = {"functional_classes=48", "global_batch_size=1024", "model_bn_span=128",
                                                "max_epochs=16", "opt_learning_rate_warmup_epochs=2",
                                                "functional_target=1"};
  return {
      {.id = "resnet-2d-gradient-summation",
       .paper = "Ying et al. 2018",
       .section = "2-D torus all-reduce" + summarised,
       .words = "2-D torus all-reduce to speed up gradient summation: over 1.5x faster than the 1-D ring at pod "
                "scale",
       .base = projected({"allreduce=ring"}, "1-D ring"),
       .variant = projected({}, "2-D torus"),
       .measure = M::kCategoryRatio,
       .category = "gradients",
       .comparison = C::kAtLeast,
       .paper_figure = 1.5,
       .unit = "x",
       .note = "fp32 gradients of ResNet-50 summed over 2048 cores, Google's v0.6 layout on tpu-v3-2048"},
      {.id = "resnet-throughput-1024-chips",
       .paper = "Ying et al. 2018",
       .section = abstract,
       .words = "a training throughput of over 1.05 million images/second on a 1024-chip TPU v3 Pod",
       .variant = projected({}, "Google's v0.6 on tpu-v3-2048"),
       .measure = M::kDeviceThroughput,
       .comparison = C::kAtLeast,
       .paper_figure = 1.05e6,
       .unit = "images/s",
       .note = "Google's v0.6 configuration (global batch 32768), not Ying et al.'s own"},
      {.id = "resnet-time-1024-chips",
       .paper = "Ying et al. 2018",
       .section = abstract,
       .words = "ResNet-50 on ImageNet to 76.3% accuracy in 2.2 minutes on a 1024-chip TPU v3 Pod",
       .variant = projected({}, "Google's v0.6 on tpu-v3-2048"),
       .measure = M::kScoreMinutes,
       .comparison = C::kAbout,
       .paper_figure = 2.2,
       .unit = "min",
       .note = "podbench projects Google's v0.6 configuration to 75.9% (the MLPerf target), whose published "
               "score is 1.28 min; the paper's 2.2 minutes was its own run to 76.3%"},
      {.id = "resnet-distributed-bn-cost",
       .paper = "Ying et al. 2018",
       .section = abstract,
       .words = "distributed batch normalization to control per-replica batch sizes (its cost at Google's group "
                "of 8 replicas, 128 images)",
       .base = projected({"distributed_bn=false"}, "local batch norm"),
       .variant = projected({}, "distributed, groups of 8"),
       .measure = M::kCategorySharePct,
       .category = "bn_sync",
       .comparison = C::kNoNumber,
       .unit = "% of the step"},
      DistributedEvalClaim("resnet", projected({}, ""), "evaluates"),
      {.id = "resnet-distributed-bn-accuracy",
       .paper = "Ying et al. 2018",
       .section = abstract,
       .words = "distributed batch normalization to control per-replica batch sizes: at 1 to 4 images a "
                "replica, statistics over a group of replicas keep the accuracy that per-replica statistics lose",
       .base = functional(small_batch, {"distributed_bn=false"}, "per-core statistics (4 images)"),
       .variant = functional(small_batch, {}, "over 8 replicas (32 images)"),
       .measure = M::kFinalMetricGain,
       .comparison = C::kPositive,
       .threshold = 0.02,
       .unit = "top-1",
       .note = "functional ResNet on generated images, 3 seeds an arm, top-1 after 4 epochs (a fixed budget: "
               "the target is set to 1, so every run ends aborted at it)"},
      {.id = "resnet-lars-large-batch",
       .paper = "Kumar et al. 2019",
       .section = "abstract (\"choice of optimizer\"); LARS for large-batch ResNet-50" + summarised,
       .words = "at a large global batch, LARS reaches an accuracy that momentum SGD does not",
       .base = functional(large_batch,
                          {"opt_name=sgd", "opt_base_learning_rate=0.5",
                           "opt_learning_rate_decay_boundary_epochs=10,14"},
                          "momentum SGD"),
       .variant = functional(large_batch, {"opt_base_learning_rate=64", "lars_opt_learning_rate_decay_steps=96"},
                             "LARS"),
       .measure = M::kFinalMetricGain,
       .comparison = C::kPositive,
       .threshold = 0.02,
       .unit = "top-1",
       .note = "functional ResNet, global batch 1024 (4 steps an epoch), 16 epochs, 3 seeds an arm, each "
               "optimizer at its best learning rate found"},
  };
}

}  // namespace

PODBENCH_REGISTER_MODEL("resnet")
    ->Plugin<ResNetWorkload>()
    ->Summary("MLPerf v0.6 ResNet-50 v1.5 on ImageNet, top-1 target 0.759")
    ->Modes({Mode::kFunctional, Mode::kProjected})
    ->Presets({"google-v0.6", "functional"})
    ->ScoredRuns(5)
    ->Zoo("ResNet-50 v1.5, 224x224, 1000 classes",
          "25,557,032 parameters and 4.09 GMAC per image: He et al. 2016 (arXiv:1512.03385), MLPerf "
          "v0.6 reference (v1.5: stride on the 3x3 convolution)")
    ->Calibration("google-v0.6", CalibrationPoints())
    ->Claims(Claims());

}  // namespace podbench::workloads
