#include "workloads/maskrcnn/maskrcnn_session.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <string>

#include "base/hash.h"
#include "topology/slice.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"
#include "workloads/maskrcnn/maskrcnn_projection.h"
#include "workloads/projection/graph_builder.h"
#include "workloads/projection/projected_run.h"

namespace podbench::maskrcnn {

using workloads::BlockResult;
using workloads::EvalResult;
using workloads::Hyperparameters;
using workloads::TimeBreakdown;

Result<FunctionalConfig> FunctionalConfigOf(const Hyperparameters& hp, const workloads::SliceInfo& slice) {
  FunctionalConfig c;
  c.image_size = static_cast<int>(hp.Int("functional_image_size"));
  c.classes = static_cast<int>(hp.Int("functional_classes"));
  c.width = static_cast<int>(hp.Int("functional_width"));
  c.fpn_channels = static_cast<int>(hp.Int("functional_fpn_channels"));
  const int candidates = static_cast<int>(hp.Int("num_image_candidates"));
  c.proposals.post_nms_top_k = candidates;
  c.proposals.pre_nms_top_k = std::max(c.proposals.pre_nms_top_k, candidates);
  c.slice = slice.name;
  c.allreduce = hp.String("allreduce");
  c.global_batch = hp.Int("global_batch_size");
  c.spatial_partitions = static_cast<int>(hp.Int("spatial_partitions"));
  PODBENCH_RETURN_IF_ERROR(c.Validate().WithContext("functional_image_size/classes/width/fpn_channels"));
  return c;
}

SgdSchedule FunctionalSchedule(const Hyperparameters& hp) {
  SgdSchedule s;
  s.base_lr = hp.Float("opt_base_learning_rate");
  s.warmup_init = hp.Float("opt_learning_rate_warmup_factor") * s.base_lr;
  s.warmup_steps = hp.Int("opt_learning_rate_warmup_steps");
  s.drop_steps[0] = hp.Int("first_lr_drop_step");
  s.drop_steps[1] = hp.Int("second_lr_drop_step");
  s.momentum = static_cast<float>(hp.Float("opt_momentum"));
  s.weight_decay = static_cast<float>(hp.Float("opt_weight_decay"));
  return s;
}

Result<detection::ShapesSpec> FunctionalShapesOf(const Hyperparameters& hp) {
  detection::ShapesSpec s;
  s.height = s.width = static_cast<int>(hp.Int("functional_image_size"));
  s.classes = static_cast<int>(hp.Int("functional_classes"));
  s.max_objects = static_cast<int>(hp.Int("functional_max_objects"));
  s.spread_area_ranges = hp.Bool("functional_spread_area_ranges");
  s.min_size = static_cast<double>(hp.Int("functional_min_object_size"));
  s.max_size = s.spread_area_ranges ? s.height : 0.625 * s.height;
  s.seed = 20190610;
  if (s.spread_area_ranges && s.max_size <= 96) {
    return Status::InvalidArgument("functional_spread_area_ranges needs functional_image_size >= 128 (COCO's large "
                                   "objects are over 96x96 pixels); functional_image_size is " +
                                   std::to_string(s.height));
  }
  if (!(s.min_size < s.max_size)) {
    return Status::InvalidArgument("functional_min_object_size " + std::to_string(hp.Int("functional_min_object_size")) +
                                   " must be below the largest object, " + std::to_string(s.max_size) +
                                   " pixels at functional_image_size " + std::to_string(s.height));
  }
  PODBENCH_RETURN_IF_ERROR(s.Validate().WithContext("functional_image_size/classes/max_objects/min_object_size"));
  return s;
}

Result<projection::ModelGraph> FunctionalMaskRcnnGraph(const FunctionalConfig& c) {
  PODBENCH_RETURN_IF_ERROR(c.Validate());
  using projection::FeatureMap;
  using projection::OpWriter;
  using projection::PoolAttrs;
  projection::ModelGraph g;
  g.name = "maskrcnn";
  const std::string side = std::to_string(c.image_size);
  g.description = "functional Mask R-CNN, " + side + "x" + side + "x3, " + std::to_string(c.classes) +
                  " classes, width " + std::to_string(c.width) + ", FPN " + std::to_string(c.fpn_channels);
  g.example_unit = "image " + side + "x" + side;
  const int64_t F = c.fpn_channels, C1 = c.classes + 1, A = 3, M = c.mask_channels, fc = c.fc_channels;
  // Backbone, FPN and RPN of one image; returns the anchors.
  auto first_stage = [&](OpWriter& w) {
    FeatureMap x = w.Conv("conv0", FeatureMap{c.image_size, c.image_size, 3}, c.width, 7, 2, 3, true);
    w.Fused("conv0.relu", x.elements(), 1);
    x = w.Pool("pool0", PoolAttrs::kMax, x, 3, 2, 1);
    std::array<FeatureMap, 4> lvl;
    for (int s = 0; s < 4; ++s) {
      const int64_t oc = int64_t{c.width} << s, stride = s == 0 ? 1 : 2;
      const std::string n = "res" + std::to_string(s + 2);
      if (stride != 1 || oc != x.c) w.Conv(n + ".shortcut", x, oc, 1, stride, 0, true);
      FeatureMap y = w.Conv(n + ".conv1", x, oc, 3, stride, 1, true);
      w.Fused(n + ".conv1.relu", y.elements(), 1);
      y = w.Conv(n + ".conv2", y, oc, 3, 1, 1, true);
      w.Fused(n + ".add_relu", y.elements(), 2, 2);
      x = lvl[static_cast<size_t>(s)] = y;
    }
    std::array<FeatureMap, 5> p;
    for (int l = 3; l >= 0; --l) {
      const std::string n = std::to_string(l + 2);
      p[static_cast<size_t>(l)] = w.Conv("fpn.lateral" + n, lvl[static_cast<size_t>(l)], F, 1, 1, 0, true);
      if (l < 3) w.Fused("fpn.topdown" + n, p[static_cast<size_t>(l)].elements(), 1, 2);
    }
    for (int l = 0; l < 4; ++l) {
      const std::string n = std::to_string(l + 2);
      p[static_cast<size_t>(l)] = w.Conv("fpn.post" + n, p[static_cast<size_t>(l)], F, 3, 1, 1, true);
    }
    p[4] = w.Pool("fpn.p6", PoolAttrs::kMax, p[3], 1, 2, 0);
    int64_t anchors = 0;
    for (size_t l = 0; l < p.size(); ++l) {
      const std::string n = "rpn.p" + std::to_string(l + 2);
      const FeatureMap h = w.Conv(n + ".conv", p[l], F, 3, 1, 1, true, "rpn.conv");
      w.Fused(n + ".relu", h.elements(), 1);
      w.Conv(n + ".out", h, 5 * A, 1, 1, 0, true, "rpn.out");
      anchors += h.h * h.w * A;
    }
    return std::make_pair(p, anchors);
  };
  auto proposals = [&](OpWriter& w, const std::array<FeatureMap, 5>& p, const detection::ProposalConfig& pc) {
    const projection::OpDefaults saved = w.defaults;
    w.defaults.dtype = projection::DType::kF32;
    w.defaults.needs_input_grad = false;
    for (size_t l = 0; l < p.size(); ++l) {
      const int64_t boxes = p[l].h * p[l].w * A, top = std::min<int64_t>(boxes, pc.pre_nms_top_k);
      w.Add("rpn.proposals.p" + std::to_string(l + 2),
            projection::NmsAttrs{boxes, 1, top, std::min<int64_t>(top, pc.post_nms_top_k), pc.nms_iou});
    }
    w.defaults = saved;
  };
  auto box_head = [&](OpWriter& w, int64_t rois) {
    w.Add("box.roi_align", projection::RoiAlignAttrs{rois, 7, F, 2});
    w.Dense("box.fc6", rois, 7 * 7 * F, fc, true);
    w.Fused("box.fc6.relu", rois * fc, 1);
    w.Dense("box.fc7", rois, fc, fc, true);
    w.Fused("box.fc7.relu", rois * fc, 1);
    w.Dense("box.class", rois, fc, C1, true);
    w.Dense("box.box", rois, fc, 4 * C1, true);
  };
  auto mask_head = [&](OpWriter& w, int64_t rois) {
    w.Add("mask.roi_align", projection::RoiAlignAttrs{rois, 14, F, 2});
    const int64_t saved = w.defaults.instances;
    w.defaults.instances = rois;
    FeatureMap x{14, 14, F};
    for (int i = 0; i < 4; ++i) {
      const std::string n = "mask.conv" + std::to_string(i + 1);
      x = w.Conv(n, x, M, 3, 1, 1, true);
      w.Fused(n + ".relu", x.elements(), 1);
    }
    x = w.ConvTranspose("mask.deconv", x, M, 2);
    w.Fused("mask.deconv.relu", x.elements(), 1);
    w.Conv("mask.out", x, C1, 1, 1, 0, true);
    w.defaults.instances = saved;
  };
  // Under spatial partitioning the ops are placed as the projected graph
  // places them (maskrcnn_graph.h): the first stage, its proposals and the
  // RPN loss split along H over the replica's cores (the functional model
  // draws proposals and samples on core 0 from gathered levels; the gathers
  // are not priced, as the projected graph prices none), the second stage
  // pinned with PinSecondStage.
  OpWriter train(&g, &g.train);
  const auto [p, anchors] = first_stage(train);
  proposals(train, p, c.proposals);
  train.defaults.dtype = projection::DType::kF32;
  train.Elementwise("rpn.loss", anchors * 5, 8, 3);
  const int64_t rois = c.roi_sampling.batch;
  const int64_t masked = static_cast<int64_t>(std::floor(rois * c.roi_sampling.fg_fraction));
  PinSecondStage(train, SecondStagePart::kBoxHead);
  box_head(train, rois);
  train.Add("box.class_loss", projection::SoftmaxXentAttrs{rois, C1});
  train.Elementwise("box.box_loss", rois * 4, 6, 3);
  PinSecondStage(train, SecondStagePart::kSamples);
  train.Add("mask.targets", projection::RoiAlignAttrs{masked, 28, 1, 1}).needs_input_grad = false;
  PinSecondStage(train, SecondStagePart::kMaskHead);
  mask_head(train, masked);
  train.Elementwise("mask.loss", masked * 28 * 28, 6, 3);

  OpWriter eval(&g, &g.eval);
  eval.defaults.dtype = projection::DType::kF32;
  const InferenceConfig ic;
  const auto [pe, eval_anchors] = first_stage(eval);
  proposals(eval, pe, ic.proposals);
  const int64_t eval_rois = std::min<int64_t>(eval_anchors, ic.proposals.post_nms_top_k);
  box_head(eval, eval_rois);
  eval.Elementwise("eval.class_softmax", eval_rois * C1, 4);
  eval.Add("eval.detections", projection::NmsAttrs{eval_rois, C1 - 1, eval_rois, ic.max_detections, ic.nms_iou});
  mask_head(eval, ic.max_detections);
  return g;
}

// ---------------------------------------------------------------- data

Result<std::unique_ptr<ShapesData>> ShapesData::Create(const ShapesDataConfig& config, const FunctionalConfig& model) {
  PODBENCH_RETURN_IF_ERROR(config.shapes.Validate());
  if (config.train_images < 1 || config.eval_images < 1) {
    return Status::InvalidArgument("maskrcnn data: functional_train_examples and functional_eval_examples must be "
                                   ">= 1");
  }
  std::unique_ptr<ShapesData> d(new ShapesData());
  d->cfg_ = config;
  d->model_ = model;
  d->rendered_.assign(static_cast<size_t>(config.train_images), 0);
  // The held-out set: pixels through the model's input scaling, ground truth
  // with masks.
  const int S = model.image_size;
  if (config.shapes.height != S || config.shapes.width != S) {
    return Status::InvalidArgument("maskrcnn data: the shapes' sides must equal functional_image_size " +
                                   std::to_string(S));
  }
  d->eval_pixels_.resize(static_cast<size_t>(config.eval_images) * S * S * 3);
  for (int64_t i = 0; i < config.eval_images; ++i) {
    d->eval_truth_.push_back(
        detection::MakeShapesImage(config.shapes, static_cast<uint64_t>(config.train_images + i), true));
    ShapesInput(d->eval_truth_.back().image, d->eval_pixels_.data() + static_cast<size_t>(i) * S * S * 3);
  }
  return d;
}

Status ShapesData::MakeBatch(std::span<const int64_t> indices, MaskBatch* out) {
  const size_t image = static_cast<size_t>(model_.image_size) * model_.image_size * 3;
  out->images.assign(indices.size() * image, 0.f);
  out->truth.assign(indices.size(), GroundTruth{});
  for (size_t row = 0; row < indices.size(); ++row) {
    const int64_t i = indices[row];
    if (i < 0 || i >= cfg_.train_images) {
      return Status::InvalidArgument("maskrcnn data: training sample " + std::to_string(i) + " is outside [0, " +
                                     std::to_string(cfg_.train_images) + ")");
    }
    if (cfg_.row_needed && !cfg_.row_needed(static_cast<int64_t>(row))) continue;
    PODBENCH_ASSIGN_OR_RETURN(MaskBatch one, MakeShapesBatch(cfg_.shapes, static_cast<uint64_t>(i), 1, model_));
    std::copy(one.images.begin(), one.images.end(), out->images.begin() + static_cast<std::ptrdiff_t>(row * image));
    out->truth[row] = std::move(one.truth[0]);
    rendered_[static_cast<size_t>(i)] = 1;
  }
  return Status::Ok();
}

Result<MaskRcnnAp> ShapesData::Evaluate(FunctionalMaskRcnn& model) const {
  PODBENCH_ASSIGN_OR_RETURN(auto predictions, model.Predict(eval_pixels_.data(), cfg_.eval_images));
  return ScoreShapes(predictions, eval_truth_, model_.image_size, model_.classes);
}

std::vector<int64_t> ShapesData::RenderedTrainImages() const {
  std::vector<int64_t> v;
  for (size_t i = 0; i < rendered_.size(); ++i) {
    if (rendered_[i]) v.push_back(static_cast<int64_t>(i));
  }
  return v;
}

// ---------------------------------------------------------------- session

namespace {

class FunctionalSession : public workloads::Session {
 public:
  explicit FunctionalSession(const workloads::RunContext& ctx) : ctx_(ctx) {}

  // Builds the model and the held-out set and prices the step. The emulated
  // init time is the projected run's (it stands for compile and start).
  Result<double> Initialize() override {
    const Hyperparameters& hp = ctx_.hp;
    PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(ctx_.slice.name, *ctx_.system));
    PODBENCH_ASSIGN_OR_RETURN(FunctionalConfig fc, FunctionalConfigOf(hp, ctx_.slice));
    fc.system = ctx_.system.get();
    fc.seed = ctx_.seed;
    fc.ranks = ctx_.ranks;
    PODBENCH_ASSIGN_OR_RETURN(net_, FunctionalMaskRcnn::Create(fc));
    schedule_ = FunctionalSchedule(hp);
    batch_ = fc.global_batch;

    ShapesDataConfig dc;
    PODBENCH_ASSIGN_OR_RETURN(dc.shapes, FunctionalShapesOf(hp));
    dc.train_images = hp.Int("functional_train_examples");
    dc.eval_images = hp.Int("functional_eval_examples");
    const FunctionalMaskRcnn* net = net_.get();
    dc.row_needed = [net](int64_t row) { return net->IsLocalImage(row); };
    PODBENCH_ASSIGN_OR_RETURN(data_, ShapesData::Create(dc, fc));
    steps_per_epoch_ = std::max<int64_t>(1, dc.train_images / batch_);
    order_.resize(static_cast<size_t>(dc.train_images));
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int64_t>(i);
    rng_.seed(ctx_.seed);

    // The emulated clock: the functional graph on the run's layout
    // (replicas of spatial_partitions cores).
    projection::StepSpec spec;
    PODBENCH_ASSIGN_OR_RETURN(spec.graph, FunctionalMaskRcnnGraph(fc));
    spec.config.layout = ctx_.description.parallelism;
    spec.config.optimizer = projection::OptimizerKind::kMomentum;
    spec.config.per_replica_batch = batch_ / spec.config.layout.replicas;
    spec.config.eval_per_replica_batch = spec.config.per_replica_batch;
    projection::TrainingSchedule ts;
    ts.global_batch = batch_;
    ts.examples_per_epoch = steps_per_epoch_ * batch_;
    PODBENCH_ASSIGN_OR_RETURN(pricing_, projection::PriceRun(spec, ts, dc.eval_images, 0, slice));
    eval_s_ = pricing_.EvalS(pricing_.BlockTrainS(steps_per_epoch_), false);
    return MaskRcnnInitLine().At(ctx_.slice.chips);
  }

  // Epochs of the training set, each in a fresh order (the run seed's); a
  // step's samples are seeded by its global step number.
  Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) override {
    BlockResult r;
    MaskBatch batch;
    double loss_sum = 0;
    for (int64_t e = 0; e < epochs && !r.diverged; ++e) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      for (int64_t s = 0; s < steps_per_epoch_ && !r.diverged; ++s) {
        PODBENCH_RETURN_IF_ERROR(data_->MakeBatch(
            std::span<const int64_t>(order_).subspan(static_cast<size_t>(s * batch_), static_cast<size_t>(batch_)),
            &batch));
        PODBENCH_ASSIGN_OR_RETURN(LossParts loss, net_->ComputeGradients(batch, static_cast<uint64_t>(step_)));
        ++r.steps;
        // A non-finite loss: the step is not applied and the run ends after
        // this block's evaluation, aborted.
        if (!std::isfinite(loss.total())) {
          r.diverged = true;
          break;
        }
        loss_sum += loss.total();
        net_->Update(schedule_, step_++);
        ctx_.on_step({first_epoch + e, s + 1, steps_per_epoch_});
      }
    }
    r.time = TimeBreakdown::Of(pricing_.step.time, static_cast<double>(r.steps));
    if (r.steps > 0 && !r.diverged) r.mean_loss = loss_sum / static_cast<double>(r.steps);
    return r;
  }

  Result<EvalResult> Evaluate(int64_t) override {
    PODBENCH_ASSIGN_OR_RETURN(MaskRcnnAp ap, data_->Evaluate(*net_));
    EvalResult r;
    r.metrics["box_map"] = std::max(0.0, ap.box);
    r.metrics["mask_map"] = std::max(0.0, ap.mask);
    r.emulated_s = eval_s_;
    return r;
  }

  Result<std::string> ParameterFingerprint() const override {
    if (!net_) return Status::FailedPrecondition("maskrcnn: no model before Initialize");
    const std::vector<float>& p = net_->parameters();
    return FingerprintOf({reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float)});
  }

 private:
  workloads::RunContext ctx_;
  std::unique_ptr<FunctionalMaskRcnn> net_;
  std::unique_ptr<ShapesData> data_;
  SgdSchedule schedule_;
  projection::RunPricing pricing_;
  double eval_s_ = 0;
  int64_t batch_ = 1, steps_per_epoch_ = 1, step_ = 0;
  std::vector<int64_t> order_;
  std::mt19937_64 rng_;  // the epochs' shuffles
};

}  // namespace

std::unique_ptr<workloads::Session> StartFunctionalSession(const workloads::RunContext& ctx) {
  return std::make_unique<FunctionalSession>(ctx);
}

}  // namespace podbench::maskrcnn
