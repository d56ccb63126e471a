// "ssd": MLPerf v0.6 SSD with a ResNet-34 backbone on the emulated TPU-v3 pod.
//
// Functional mode trains a small SSD of the same architecture for real
// (ssd_functional.h) on generated shapes images (ssd_data.h), with Google's
// v0.6 optimiser (momentum SGD, linear warm-up scaled by the warm-up factor,
// two decays), spatial partitioning over a replica's cores
// (`spatial_partitions`), distributed batch norm over model_bn_span images,
// and evaluates real COCO mAP (per-class NMS, then podbench's COCOeval).
// Projected mode is the shared composition (workloads/projected_runs.h) of
// the full SSD-ResNet34 (ssd_graph.h) on Google's per-slice layouts (`--preset google-v0.6`,
// ssd_google_v06.h), on Google's block and eval schedule, converging at the
// eval Google's runs did (ssd_projected.h); its mAP values are modelled.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "base/hash.h"
#include "kernels/cost/tpu_cost.h"
#include "topology/collectives.h"
#include "topology/logical.h"
#include "topology/slice.h"
#include "workloads/ssd/ssd_data.h"
#include "workloads/ssd/ssd_functional.h"
#include "workloads/ssd/ssd_google_v06.h"
#include "workloads/ssd/ssd_graph.h"
#include "workloads/ssd/ssd_model.h"
#include "workloads/ssd/ssd_projected.h"
#include "workloads/claims.h"
#include "workloads/functional/parallel_hyperparameters.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

// The evaluation points of Google's v0.6 SSD runs: epochs 33, 43, 49, 54, 59
// and 65 at batch 1024, and 71, 76, 81 as at batch 2048 (their logs).
const std::vector<int64_t> kEvalEpochs = {33, 43, 49, 54, 59, 65, 71, 76, 81};
// MLPerf v0.6 SSD quality target (COCO mAP@[0.5:0.95]); the v0.6 rules
// check every SSD log against it, so a functional target may not be lower.
constexpr double kMlperfTarget = 0.23;
// Functional mode's default mAP target on the generated shapes
// (docs/models/ssd.md gives the measured runs).
constexpr double kFunctionalTarget = 0.40;
// Functional global batches above this are COCO-scale values by mistake.
constexpr int64_t kMaxFunctionalBatch = 512;

// A projected run's settings from its hyperparameters.
ssd::ProjectedSsdSettings ProjectedSettings(const Hyperparameters& hp) {
  ssd::ProjectedSsdSettings s;
  s.global_batch = hp.Int("global_batch_size");
  s.spatial_partitions = hp.Int("spatial_partitions");
  s.bn_span = hp.Int("model_bn_span");
  s.distributed_bn = hp.Bool("distributed_bn");
  s.eval = hp.Bool("projected_eval");
  s.distributed_eval = hp.Bool("distributed_eval");
  s.allreduce = hp.String("allreduce");
  return s;
}

Result<ssd::SsdConfig> FunctionalNet(const Hyperparameters& hp) {
  ssd::SsdConfig c;
  c.image_size = static_cast<int>(hp.Int("functional_image_size"));
  c.width = static_cast<int>(hp.Int("functional_width"));
  c.classes = static_cast<int>(hp.Int("functional_classes"));
  const std::string& b = hp.String("functional_blocks");
  std::vector<std::string> items(1);
  for (char ch : b) {
    if (ch == ',') {
      items.emplace_back();
    } else {
      items.back() += ch;
    }
  }
  bool ok = items.size() == 3;
  for (size_t i = 0; ok && i < 3; ++i) {
    char* end = nullptr;
    const long v = std::strtol(items[i].c_str(), &end, 10);
    ok = !items[i].empty() && *end == '\0' && v >= 1 && v <= 16;
    if (ok) c.blocks[i] = static_cast<int>(v);
  }
  if (!ok) return Status::InvalidArgument("functional_blocks '" + b + "': expected three counts 1..16, e.g. 1,1,1");
  PODBENCH_RETURN_IF_ERROR(c.Validate().WithContext("functional_image_size/width/classes"));
  return c;
}

// =====================================================================
// The emulated clock of functional mode, TEMPORARY: until the shared
// projection layer (workloads/projection/) prices a functional layout, this
// one function prices what the busiest core of the run's layout does per
// training step with the kernels' TPU-v3 cost model (kernels/cost/tpu_cost.h,
// bf16 activations) and the topology's analytic collective times
// (topology::CollectiveTime): every op's forward and backward on its strip
// (halo rows included), the loss on the replica's first core, halo
// exchanges, gathers, the prediction exchange, batch-norm sums, the gradient
// all-reduce and the momentum update; and an evaluation as the forward pass
// over ceil(eval_images / cores) whole images per core. The host side
// (input pipeline, COCO scoring) is not priced. Modelled, not measured.
// =====================================================================
struct FunctionalClock {
  TimeBreakdown step;
  double eval_s = 0;
};
Result<FunctionalClock> PriceFunctionalRun(const ssd::FunctionalSsd& net, const topology::Slice& slice,
                                           int64_t eval_images) {
  using kernels::kBf16Bytes;
  using kernels::kF32Bytes;
  const kernels::CoreSpec& core = slice.system().core;
  const ssd::FunctionalConfig& cfg = net.config();
  const int k = cfg.partitions;
  const int64_t n = cfg.global_batch / net.replicas();
  const topology::LogicalTopology whole = topology::LogicalTopology::WholeSlice(slice);
  PODBENCH_ASSIGN_OR_RETURN(auto replica, topology::LogicalTopology::ReplicaGroups(slice, k, 1));
  PODBENCH_ASSIGN_OR_RETURN(auto bn_group, topology::LogicalTopology::ReplicaGroups(slice, k, cfg.bn_group));
  auto conv_shape = [](const ssd::Op& op, const ssd::TensorShape& x, const ssd::TensorShape& y, int out_rows,
                       int64_t images) {
    kernels::Conv2dShape s;  // a height whose output is exactly `out_rows`
    s.n = images;
    s.h = (out_rows - 1) * op.stride + op.kernel - 2 * op.pad;
    s.w = x.w;
    s.c = x.c;
    s.oc = y.c;
    s.kh = s.kw = op.kernel;
    s.stride = op.stride;
    s.pad = op.pad;
    return s;
  };
  // Charges an op's time to the unit that bounds it, as the projection layer does.
  auto charge = [](const kernels::OpCost& c, TimeBreakdown* into) {
    const std::string_view bound = c.bound();
    double& slot = bound == "mxu" ? into->mxu_s : bound == "vector" ? into->vector_s : into->hbm_s;
    slot += c.total_s();
  };
  // Forward (and backward) of one op producing `out_rows` rows of `images` images.
  auto price = [&](const ssd::Op& op, const ssd::TensorShape& x, const ssd::TensorShape& y, int out_rows,
                   int64_t images, bool backward, TimeBreakdown* into) {
    const int64_t out = images * out_rows * y.w * y.c;
    switch (op.kind) {
      case ssd::OpKind::kConv: {
        const kernels::Conv2dShape s = conv_shape(op, x, y, out_rows, images);
        charge(kernels::Conv2dForwardCost(core, s), into);
        if (backward) {
          charge(kernels::Conv2dBackwardFilterCost(core, s), into);
          if (op.in != 0) charge(kernels::Conv2dBackwardDataCost(core, s), into);
        }
        break;
      }
      case ssd::OpKind::kBatchNorm:
        charge(kernels::BatchNormForwardCost(core, images * out_rows * y.w, y.c), into);
        if (backward) charge(kernels::BatchNormBackwardCost(core, images * out_rows * y.w, y.c), into);
        break;
      case ssd::OpKind::kMaxPool:
        charge(kernels::ElementwiseCost(core, out, op.kernel * op.kernel, 2 * kBf16Bytes), into);
        if (backward) charge(kernels::ElementwiseCost(core, out, 2, 2 * kBf16Bytes), into);
        break;
      case ssd::OpKind::kRelu:
      case ssd::OpKind::kAdd:
        charge(kernels::ElementwiseCost(core, out, 1, 3 * kBf16Bytes), into);
        if (backward) charge(kernels::ElementwiseCost(core, out, 1, 3 * kBf16Bytes), into);
        break;
    }
  };
  FunctionalClock clock;
  TimeBreakdown& st = clock.step;
  const double A = static_cast<double>(net.net().anchors.NumAnchors());
  const int C = net.net().classes_with_background(), P = net.net().pred_width();
  for (const ssd::PlannedOp& po : net.plan()) {
    if (po.op == nullptr) {  // a gather of a strip-split tensor on every core of the replica
      PODBENCH_ASSIGN_OR_RETURN(double g, topology::CollectiveTime("ring", n * po.in.elems() * kBf16Bytes, replica));
      st.collectives_s += g;
      continue;
    }
    if (po.out_rows > 0) price(*po.op, po.in, po.out, po.out_rows, n, true, &st);
    if (po.halo > 0) {  // forward rows out, backward their gradients back
      PODBENCH_ASSIGN_OR_RETURN(double h, topology::CollectiveTime(
                                              "halo_exchange", 4.0 * n * po.halo * po.in.w * po.in.c * kBf16Bytes, replica));
      st.halo_s += 2 * h;
    }
    if (po.op->kind == ssd::OpKind::kBatchNorm && k * cfg.bn_group > 1) {
      PODBENCH_ASSIGN_OR_RETURN(double b, topology::CollectiveTime("ring", (2.0 * po.out.c + 1) * kF32Bytes, bn_group));
      st.bn_sync_s += 2 * b;
    }
  }
  charge(kernels::SoftmaxXentCost(core, n * static_cast<int64_t>(A), C), &st);
  if (k > 1) {
    PODBENCH_ASSIGN_OR_RETURN(double p, topology::CollectiveTime("ring", n * A * P * kF32Bytes, replica));
    st.collectives_s += 2 * p;
  }
  const int64_t params = net.net().num_params;
  if (net.cores() > 1) {
    PODBENCH_ASSIGN_OR_RETURN(double g, topology::CollectiveTime(cfg.allreduce, params * kF32Bytes, whole));
    st.collectives_s += g;
  }
  st.optimizer_s = kernels::OptimizerCost(core, params, kernels::Optimizer::kSgdMomentum).total_s();
  const int64_t per_core = (eval_images + net.cores() - 1) / net.cores();
  TimeBreakdown eval;
  for (const ssd::Op& op : net.net().ops) {
    const ssd::TensorShape& x = net.net().tensors[static_cast<size_t>(op.in)];
    const ssd::TensorShape& y = net.net().tensors[static_cast<size_t>(op.out)];
    price(op, x, y, y.h, per_core, false, &eval);
  }
  clock.eval_s = eval.compute_s();
  return clock;
}
// ===================================================================== end of the temporary clock

class SsdSession : public Session {
 public:
  explicit SsdSession(const RunContext& ctx) : ctx_(ctx) {}

  Result<double> Initialize() override {
    const Hyperparameters& hp = ctx_.hp;
    PODBENCH_ASSIGN_OR_RETURN(slice_, topology::Slice::FromName(ctx_.slice.name, *ctx_.system));
    ssd::FunctionalConfig fc;
    PODBENCH_ASSIGN_OR_RETURN(fc.net, FunctionalNet(hp));
    fc.slice = ctx_.slice.name;
    fc.system = ctx_.system.get();
    fc.partitions = static_cast<int>(hp.Int("spatial_partitions"));
    fc.global_batch = hp.Int("global_batch_size");
    fc.bn_group = static_cast<int>(ctx_.description.parallelism.bn_group);
    fc.allreduce = hp.String("allreduce");
    fc.precision = hp.String("functional_precision") == "fp32" ? kernels::Precision::kF32 : kernels::Precision::kBf16;
    fc.seed = ctx_.seed;
    fc.ranks = ctx_.ranks;
    PODBENCH_ASSIGN_OR_RETURN(net_, ssd::FunctionalSsd::Create(fc));
    ssd::SsdDataConfig dc;
    dc.shapes.height = dc.shapes.width = fc.net.image_size;
    dc.shapes.classes = fc.net.classes;
    dc.shapes.max_objects = static_cast<int>(hp.Int("functional_max_objects"));
    // Objects from 0.6 of the smallest anchor (21 pixels, the reference's
    // scale at stride 8) to 3/4 of the image side: sizes the anchors cover.
    dc.shapes.max_size = fc.net.image_size * 0.75;
    dc.shapes.min_size = std::min(0.6 * net_->net().anchors.scales[0], dc.shapes.max_size);
    dc.shapes.seed = 20190610;  // the dataset is fixed; the run seed is not
    dc.train_images = hp.Int("functional_train_examples");
    dc.eval_images = hp.Int("functional_eval_examples");
    dc.max_samples = static_cast<int>(hp.Int("max_samples"));
    dc.flip = hp.Bool("functional_flip");
    // Each rank renders only its cores' images (ssd_data.h).
    const ssd::FunctionalSsd* net = net_.get();
    dc.train_row_needed = [net](int64_t row) { return net->IsLocalTrainRow(row); };
    dc.eval_image_needed = [net](int64_t i) { return net->IsLocalEvalImage(i); };
    PODBENCH_ASSIGN_OR_RETURN(data_, ssd::SsdData::Create(net_->net(), dc));
    if (ctx_.ranks && ctx_.ranks->size() > 1) {
      // COCO mAP needs every held-out image's ground truth: the ranks share
      // theirs, as they share their cores' predictions.
      PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> truths, ctx_.ranks->AllGather(data_->LocalEvalTruth()));
      for (size_t r = 0; r < truths.size(); ++r) {
        if (static_cast<int>(r) == ctx_.ranks->rank()) continue;
        PODBENCH_RETURN_IF_ERROR(data_->AddEvalTruth(truths[r]).WithContext("from MPI rank " + std::to_string(r)));
      }
    }
    PODBENCH_ASSIGN_OR_RETURN(clock_, PriceFunctionalRun(*net_, *slice_, dc.eval_images));
    batch_ = fc.global_batch;
    steps_per_epoch_ = std::max<int64_t>(1, dc.train_images / batch_);
    order_.resize(static_cast<size_t>(dc.train_images));
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int64_t>(i);
    rng_.seed(ctx_.seed);
    return ssd::SsdInitLine().At(ctx_.slice.chips);
  }

  Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) override {
    BlockResult r;
    ssd::DetectionBatch batch;
    std::vector<int64_t> idx(static_cast<size_t>(batch_));
    for (int64_t e = 0; e < epochs; ++e) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      for (int64_t s = 0; s < steps_per_epoch_; ++s) {
        std::copy_n(order_.begin() + s * batch_, batch_, idx.begin());
        // The run seed and the step seed each row's augmentation.
        data_->MakeBatch(idx, MixSeed(ctx_.seed, static_cast<uint64_t>(step_)), &batch);
        PODBENCH_ASSIGN_OR_RETURN(double loss, net_->ComputeGradients(batch));
        if (!std::isfinite(loss)) {
          return Status::Internal("ssd functional: the loss diverged at step " + std::to_string(step_));
        }
        ssd::SgdStep st;
        st.lr = LearningRate(step_++);
        st.momentum = 0.9f;  // the reference's MOMENTUM
        st.weight_decay = static_cast<float>(ctx_.hp.Float("opt_weight_decay"));
        net_->Update(st);
        ++r.steps;
        ctx_.on_step({first_epoch + e, s + 1, steps_per_epoch_});
      }
    }
    const double steps = static_cast<double>(r.steps);
    for (auto field : {&TimeBreakdown::mxu_s, &TimeBreakdown::vector_s, &TimeBreakdown::hbm_s,
                       &TimeBreakdown::collectives_s, &TimeBreakdown::halo_s, &TimeBreakdown::bn_sync_s,
                       &TimeBreakdown::optimizer_s}) {
      r.time.*field = steps * clock_.step.*field;
    }
    return r;
  }

  Result<EvalResult> Evaluate(int64_t) override {
    PODBENCH_ASSIGN_OR_RETURN(std::vector<float> pred,
                              net_->Predict(data_->eval_pixels().data(), data_->eval_images()));
    PODBENCH_ASSIGN_OR_RETURN(detection::CocoSummary s, data_->Evaluate(pred));
    EvalResult r;
    r.metrics["box_map"] = std::max(0.0, s.ap());
    r.emulated_s = clock_.eval_s;
    return r;
  }

 private:
  // Google's v0.6 schedule: linear warm-up from 0 to base x factor over the
  // warm-up steps, then that peak, x0.1 from the first decay epoch, x0.01
  // from the second.
  float LearningRate(int64_t step) const {
    const Hyperparameters& hp = ctx_.hp;
    const double peak = hp.Float("opt_base_learning_rate") * hp.Float("opt_learning_rate_warmup_factor");
    const double warm = static_cast<double>(hp.Int("opt_learning_rate_warmup_steps"));
    const double epoch = static_cast<double>(step) / static_cast<double>(steps_per_epoch_);
    double lr = peak;
    if (static_cast<double>(step) < warm) lr = peak * static_cast<double>(step) / warm;
    if (epoch >= hp.Float("lr_decay_epoch_1")) lr = 0.1 * peak;
    if (epoch >= hp.Float("lr_decay_epoch_2")) lr = 0.01 * peak;
    return static_cast<float>(lr);
  }


 public:
  Result<std::string> ParameterFingerprint() const override {
    if (!net_) return Status::FailedPrecondition("ssd: no model before Initialize");
    const std::vector<float>& p = net_->parameters();
    return FingerprintOf({reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float)});
  }

 private:
  RunContext ctx_;
  std::optional<topology::Slice> slice_;
  std::unique_ptr<ssd::FunctionalSsd> net_;
  std::unique_ptr<ssd::SsdData> data_;
  FunctionalClock clock_;
  int64_t batch_ = 1, steps_per_epoch_ = 1, step_ = 0;
  std::vector<int64_t> order_;
  std::mt19937_64 rng_;  // the epochs' shuffles
};

// Projected mode has convergence data only for Google's v0.6 runs (the eval
// each run succeeded at, per slice and batch): momentum SGD with the run
// script's schedule at that global batch, and no crop (the host's input work
// is priced per image, whatever the crop tries). Any other value would be
// logged without changing what is projected, so it is refused, quoting the
// values the data covers.
Status CheckProjectedSchedule(const Hyperparameters& hp) {
  const int64_t batch = hp.Int("global_batch_size");
  std::vector<PublishedSchedule> schedules;
  for (const ssd::SsdGoogleV06Slice& row : ssd::SsdGoogleV06Slices()) {
    if (row.global_batch != batch) continue;
    const double steps_per_epoch = double(ssd::kSsdTrainImagesPerEpoch) / double(row.global_batch);
    schedules.push_back({{"opt_base_learning_rate", row.base_lr},
                         {"opt_weight_decay", ssd::kSsdWeightDecay},
                         {"opt_learning_rate_warmup_steps", static_cast<int64_t>(row.lr_warmup_epochs * steps_per_epoch)},
                         {"opt_learning_rate_warmup_factor", double(row.global_batch) / 32.0},
                         {"lr_decay_epoch_1", row.first_lr_drop_epoch},
                         {"lr_decay_epoch_2", row.second_lr_drop_epoch},
                         {"max_samples", int64_t{1}}});
  }
  return CheckPublishedSchedule(hp, batch, "the eval at which a run reaches 0.23 mAP from Google's v0.6 SSD runs",
                                "1024 and 2048", schedules);
}

class SsdWorkload : public Workload {
 public:
  std::vector<HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<HyperparameterSpec> s;
    // The MLPerf v0.6 SSD keys (the official 0.6.0 ssd rules require each
    // exactly once), defaults Google's tpu-v3-32..256 values.
    auto& batch = s.emplace_back(Spec("global_batch_size", int64_t{1024}, "images per step over the slice"));
    batch.min = 1;
    batch.max = 65536;
    batch.rule = "v0.6 closed division: any constant batch size";
    auto& span = s.emplace_back(Spec("model_bn_span", int64_t{64},
                                     "images over which batch-norm statistics are computed (a whole number of "
                                     "replicas' batches)"));
    span.min = 1;
    span.max = 65536;
    auto& lr = s.emplace_back(Spec("opt_base_learning_rate", 3e-3,
                                   "learning rate per 32 images: the peak is this x the warm-up factor"));
    lr.min = 1e-6;
    lr.max = 1.0;
    auto& wd = s.emplace_back(Spec("opt_weight_decay", 5e-4, "L2 weight decay of the convolution weights"));
    wd.min = 1e-7;
    wd.max = 1e-2;
    wd.rule = "the official 0.6.0 ssd rules require opt_weight_decay > 0";
    auto& ws = s.emplace_back(Spec("opt_learning_rate_warmup_steps", int64_t{585},
                                   "steps of linear warm-up from 0 to the peak learning rate"));
    ws.min = 1;
    ws.max = 1000000;
    ws.rule = "the official 0.6.0 ssd rules require opt_learning_rate_warmup_steps > 0";
    auto& wf = s.emplace_back(Spec("opt_learning_rate_warmup_factor", 32.0,
                                   "peak learning rate / opt_base_learning_rate (Google's v0.6: "
                                   "global_batch_size / 32)"));
    wf.min = 1e-3;
    wf.max = 4096;
    auto& ms = s.emplace_back(Spec("max_samples", int64_t{1},
                                   "tries per pass of the IoU-biased random crop (the reference: 1; Google's "
                                   "v0.6 logs write 8732, its anchor count, under this key)"));
    ms.min = 1;
    ms.max = 100;
    auto unlogged = [&](HyperparameterSpec spec) -> HyperparameterSpec& { return AddUnlogged(s, std::move(spec)); };
    // The learning-rate decays (no v0.6 log key): Google's batch-1024 epochs.
    auto& d1 = unlogged(Spec("lr_decay_epoch_1", 42.6, "epoch from which the learning rate is 0.1 x the peak"));
    d1.min = 1;
    d1.max = 1000;
    auto& d2 = unlogged(Spec("lr_decay_epoch_2", 53.3, "epoch from which the learning rate is 0.01 x the peak"));
    d2.min = 1;
    d2.max = 1000;
    auto& me = unlogged(Spec("max_epochs", int64_t{81}, "abort after this many epochs"));
    me.min = kEvalEpochs.front();
    me.max = 200;
    // Emulated-backend techniques (not MLPerf hyperparameters).
    auto& sp = unlogged(Spec("spatial_partitions", int64_t{1},
                             "cores per replica, each taking a strip of every image's rows (Google: 4 on "
                             "tpu-v3-1024 and -2048)"));
    sp.min = 1;
    sp.max = 4;
    auto& ar = unlogged(Spec("allreduce", std::string("torus2d"), "gradient summation algorithm"));
    ar.choices = {"ring", "ring_bidir", "torus2d", "torus2d_pipelined", "torus2d_bidir"};
    unlogged(Spec("distributed_bn", true,
                  "projected mode: batch-norm statistics over model_bn_span images (false: each replica's own)"));
    AddEvalAblations(s, "every replica evaluates");
    // Functional mode: the network and data this machine trains.
    auto fnum = [&](const char* name, int64_t def, double lo, double hi, const char* help) {
      AddUnloggedInt(s, name, def, lo, hi, help);
    };
    fnum("functional_image_size", 64, 16, 512, "functional mode: image side in pixels (a multiple of 8)");
    fnum("functional_width", 16, 1, 128, "functional mode: stage-1 channels (ResNet-34: 64)");
    fnum("functional_classes", 6, 1, detection::kMaxShapeClasses, "functional mode: shape classes");
    fnum("functional_max_objects", 5, 1, 20, "functional mode: objects per generated image, at most");
    fnum("functional_train_examples", 1024, 1, 1 << 20, "functional mode: generated training images (one epoch)");
    fnum("functional_eval_examples", 256, 1, 1 << 18, "functional mode: held-out generated images");
    unlogged(Spec("functional_blocks", std::string("1,1,1"),
                  "functional mode: basic blocks per backbone stage (ResNet-34: 3,4,6)"));
    auto& fp = unlogged(Spec("functional_precision", std::string("bf16"),
                             "functional mode: convolution precision (bf16 MXU contract or fp32)"));
    fp.choices = {"bf16", "fp32"};
    auto& ft = unlogged(Spec("functional_target", kFunctionalTarget,
                             "functional mode: mAP@[0.5:0.95] target on the held-out generated images"));
    ft.min = kMlperfTarget;
    ft.max = 1.0;
    ft.rule = "the v0.6 rules check every SSD log against MLPerf's mAP target 0.23";
    unlogged(Spec("functional_flip", true, "functional mode: random horizontal flips"));
    return s;
  }

  Result<std::map<std::string, HpValue>> Preset(std::string_view preset, const SliceInfo& slice) const override {
    if (preset == "google-v0.6") return GoogleV06(slice);
    if (preset != "functional") return Status::NotFound("ssd has no preset '" + std::string(preset) + "'");
    // Functional mode's tuned values: 32 images per step (more on slices of
    // more cores), batch norm over the whole batch, 32 steps an epoch of the
    // default set, a peak learning rate of 0.1 reached after 2 epochs and
    // decays early enough to settle before the first evaluation (epoch 33).
    const int64_t batch = std::max<int64_t>(32, slice.cores);
    return std::map<std::string, HpValue>{
        {"global_batch_size", batch},
        {"model_bn_span", batch},
        {"opt_base_learning_rate", 0.1},
        {"opt_learning_rate_warmup_factor", static_cast<double>(batch) / 32.0},
        {"opt_learning_rate_warmup_steps", int64_t{64}},
        {"lr_decay_epoch_1", 24.0},
        {"lr_decay_epoch_2", 36.0},
    };
  }

  // Google's v0.6 run script of `slice` (ssd_google_v06.h): batch, BN span,
  // learning-rate schedule, 4-way partitioning at tpu-v3-1024 and -2048, and
  // the epoch budget (its last eval).
  static Result<std::map<std::string, HpValue>> GoogleV06(const SliceInfo& slice) {
    const ssd::SsdGoogleV06Slice* r = ssd::FindSsdGoogleV06Slice(slice.name);
    if (r == nullptr || r->cores != slice.cores) {
      return Status::InvalidArgument("preset google-v0.6 has no ssd configuration for " + slice.name +
                                     " (it has tpu-v3-32, -128, -256, -512, -1024 and -2048)");
    }
    const double steps_per_epoch = double(ssd::kSsdTrainImagesPerEpoch) / double(r->global_batch);
    return std::map<std::string, HpValue>{
        {"global_batch_size", r->global_batch},
        {"model_bn_span", r->bn_group * r->per_replica_batch},
        {"opt_base_learning_rate", r->base_lr},
        {"opt_weight_decay", ssd::kSsdWeightDecay},
        // Google's logs: 585 at batch 1024, 1171 at 2048 (warm-up epochs x
        // steps per epoch, rounded down).
        {"opt_learning_rate_warmup_steps", static_cast<int64_t>(r->lr_warmup_epochs * steps_per_epoch)},
        {"opt_learning_rate_warmup_factor", double(r->global_batch) / 32.0},
        {"lr_decay_epoch_1", r->first_lr_drop_epoch},
        {"lr_decay_epoch_2", r->second_lr_drop_epoch},
        {"max_epochs", ssd::ProjectedSsdEvalEpochs(r->global_batch).back()},
        {"spatial_partitions", r->cores_per_replica},
    };
  }

  Status Validate(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    if (mode == Mode::kProjected) {
      if (hp.Float("lr_decay_epoch_2") < hp.Float("lr_decay_epoch_1")) {
        return Status::InvalidArgument("lr_decay_epoch_2 must not come before lr_decay_epoch_1");
      }
      PODBENCH_RETURN_IF_ERROR(ssd::ValidateProjectedSsd(ProjectedSettings(hp), slice.cores));
      return CheckProjectedSchedule(hp);
    }
    const int64_t b = hp.Int("global_batch_size");
    if (b > kMaxFunctionalBatch) {
      return Status::InvalidArgument("global_batch_size " + std::to_string(b) +
                                     " is a COCO-scale batch; functional mode trains a small SSD on generated "
                                     "images: use --preset functional or --set global_batch_size=N with N <= " +
                                     std::to_string(kMaxFunctionalBatch));
    }
    PODBENCH_RETURN_IF_ERROR(FunctionalNet(hp).status());
    PODBENCH_ASSIGN_OR_RETURN(const projection::ParallelLayout layout,
                              functional::SpatiallyPartitionedLayout(hp, slice));
    const int64_t replicas = layout.replicas;
    const int64_t per_replica = b / replicas, span = hp.Int("model_bn_span");
    if (span % per_replica != 0 || replicas % (span / per_replica) != 0) {
      return Status::InvalidArgument("model_bn_span " + std::to_string(span) +
                                     " must be a whole number of replicas' batches (" + std::to_string(per_replica) +
                                     " images each) that divides the " + std::to_string(replicas) + " replicas");
    }
    if (hp.Int("functional_train_examples") < b) {
      return Status::InvalidArgument("functional_train_examples " + std::to_string(hp.Int("functional_train_examples")) +
                                     " is smaller than one global batch (" + std::to_string(b) + ")");
    }
    if (hp.Float("lr_decay_epoch_2") < hp.Float("lr_decay_epoch_1")) {
      return Status::InvalidArgument("lr_decay_epoch_2 must not come before lr_decay_epoch_1");
    }
    return Status::Ok();
  }

  Result<WorkloadDescription> Describe(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    if (mode == Mode::kProjected) return DescribeProjected(hp, slice);
    WorkloadDescription d;
    d.benchmark = "ssd";
    d.global_batch = hp.Int("global_batch_size");
    PODBENCH_ASSIGN_OR_RETURN(ssd::SsdConfig net_cfg, FunctionalNet(hp));
    const ssd::SsdNet net = ssd::BuildSsdNet(net_cfg);
    d.data = {"generated_shapes", hp.Int("functional_train_examples"), hp.Int("functional_eval_examples")};
    d.model = {"ssd_resnet_functional", net.num_params, 6.0 * static_cast<double>(net.Macs())};
    // The functional SSD sums fp32 gradients.
    PODBENCH_ASSIGN_OR_RETURN(d.parallelism, functional::SpatiallyPartitionedLayout(hp, slice));
    d.parallelism.bn_group = hp.Int("model_bn_span") / (d.global_batch / d.parallelism.replicas);
    d.targets = {{"box_map", hp.Float("functional_target"), true}};
    d.cadence.at_epochs = kEvalEpochs;
    d.cadence.max_epochs = hp.Int("max_epochs");
    return d;
  }

  static Result<WorkloadDescription> DescribeProjected(const Hyperparameters& hp, const SliceInfo& slice) {
    WorkloadDescription d;
    d.benchmark = "ssd";
    d.global_batch = hp.Int("global_batch_size");
    PODBENCH_ASSIGN_OR_RETURN(const projection::ModelGraph g, ssd::BuildSsdGraph());
    d.data = {"coco2017", ssd::kSsdTrainImagesPerEpoch, ssd::kSsdEvalImages};
    d.model = {"ssd_resnet34", g.TotalParams(), 6.0 * g.ForwardMacs()};
    PODBENCH_ASSIGN_OR_RETURN(const projection::StepConfig c, ssd::ProjectedSsdConfig(ProjectedSettings(hp), slice.cores));
    d.parallelism = c.layout;
    d.targets = {{"box_map", kMlperfTarget, true}};
    d.cadence.at_epochs = ssd::ProjectedSsdEvalEpochs(d.global_batch);
    d.cadence.max_epochs = hp.Int("max_epochs");
    return d;
  }

  Result<projection::StepSpec> ProjectedStep(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return ssd::ProjectedSsdStep(ProjectedSettings(hp), slice.name, slice.cores);
  }
  Result<projection::RunPlan> ProjectedPlan(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return ssd::ProjectedSsdPlan(ProjectedSettings(hp), slice.name);
  }

  Result<std::unique_ptr<Session>> Start(const RunContext& ctx) const override {
    if (ctx.mode == Mode::kProjected) return StartProjected(*this, ctx);
    return std::unique_ptr<Session>(new SsdSession(ctx));
  }
};

// The published figures `podbench calibrate` fits to, medians over Google's
// five runs' logs (ssd_google_v06.h): the first block's extra on every slice
// and the host's COCO scoring of an evaluation at tpu-v3-32.
std::vector<projection::CalibrationPoint> CalibrationPoints() {
  std::vector<projection::CalibrationPoint> points;
  for (const ssd::SsdGoogleV06Slice& r : ssd::SsdGoogleV06Slices()) {
    points.push_back({std::string(r.slice), projection::CalibrationKind::kFirstBlockExtra,
                      r.published_first_block_extra_s,
                      "first block over the later ones (block_start segments), Google's 5 v0.6 runs' logs"});
  }
  points.push_back({"tpu-v3-32", projection::CalibrationKind::kScoring, ssd::kPublishedCocoScoringS,
                    "the last evaluation's detections at the host (block_start) to run_stop, 5 runs' logs"});
  return points;
}

// The seed papers' claims about SSD that podbench tests
// (workloads/claims.h), on Google's v0.6 configurations.
std::vector<ClaimSpec> Claims() {
  auto google = [](const char* slice, std::vector<std::string> sets, std::string label) {
    return ClaimRun{slice, "projected", "google-v0.6", std::move(sets), 5, std::move(label)};
  };
  return {
      // The tpu-v3-2048 layout (512 replicas of 4 images) with one core a
      // replica is Google's tpu-v3-512 configuration: the same replicas and
      // batch, a quarter of the cores.
      {.id = "ssd-spatial-partitioning",
       .paper = "Kumar et al. 2019",
       .section = "spatial partitioning (as the v0.6 submission notes summarise it)",
       .words = "spatial partitioning with halo exchange: SSD 1.6x on 4 cores",
       .base = google("tpu-v3-512", {}, "512 replicas of 1 core"),
       .variant = google("tpu-v3-2048", {}, "512 replicas of 4 cores"),
       .measure = ClaimMeasure::kDeviceStepRatio,
       .comparison = ClaimComparison::kAbout,
       .paper_figure = 1.6,
       .unit = "x",
       .note = "the step of the same 512 replicas of 4 images on 1 and on 4 cores each (the slice differs with "
               "the switch: tpu-v3-512 and -2048, Google's two layouts)"},
      {.id = "ssd-plateau",
       .paper = "Kumar et al. 2019",
       .section = "SSD's scaling, from Google's published v0.6 scores (1.79 and 1.21 min)",
       .words = "4x the cores from tpu-v3-512 to tpu-v3-2048 buy 1.48x in time to train",
       .base = google("tpu-v3-512", {}, "tpu-v3-512"),
       .variant = google("tpu-v3-2048", {}, "tpu-v3-2048"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kAbout,
       .paper_figure = 1.48,
       .unit = "x"},
      DistributedEvalClaim("ssd", google("tpu-v3-2048", {}, ""), "evaluates"),
  };
}

}  // namespace

PODBENCH_REGISTER_MODEL("ssd")
    ->Plugin<SsdWorkload>()
    ->Summary("MLPerf v0.6 SSD-ResNet34 on COCO, mAP target 0.23")
    ->Modes({Mode::kFunctional, Mode::kProjected})
    ->Presets({"google-v0.6", "functional"})
    ->ScoredRuns(5)
    ->Zoo("SSD-ResNet34, 300x300, 8732 anchors, 81 classes (space-to-depth conv0 but on tpu-v3-32)",
          "parameters: derived from Google's v0.6 ssd_architecture.py; nearest published: MLPerf inference "
          "ssd-resnet34 1200x1200 (OpenVINO Open Model Zoo: 20.058 M parameters, 433.411 GFLOPs), the same "
          "network with strides 3,3,2,2,2,2")
    ->Calibration("google-v0.6", CalibrationPoints())
    ->Claims(Claims());

}  // namespace podbench::workloads
