#include "workloads/maskrcnn/maskrcnn_functional.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "kernels/conv/deconv2d.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/pooling.h"
#include "kernels/ops/softmax_xent.h"
#include "topology/collectives.h"
#include "topology/logical.h"
#include "topology/slice.h"
#include "workloads/detection/box_coder.h"
#include "workloads/detection/coco_eval.h"
#include "workloads/detection/mask_loss.h"
#include "workloads/detection/mask_rle.h"
#include "workloads/detection/nms.h"
#include "workloads/detection/roi_align.h"
#include "workloads/functional/spatial_partition.h"
#include "workloads/maskrcnn/maskrcnn_graph.h"

namespace podbench::maskrcnn {

using detection::Box;

namespace {

constexpr int kMinLevel = 2, kLevels = 5;  // FPN levels 2..6
constexpr int kBoxRoi = 7, kMaskRoi = 14, kMaskOut = 28;
constexpr int kMaskConvs = 4;

enum class OpKind { kConv, kRelu, kAdd, kMaxPool, kUpsample };
using StepKind = functional::StripStepKind;

struct Shape {
  int h = 0, w = 0, c = 0;
  int64_t elems() const { return int64_t{h} * w * c; }
};

// A convolution (deconv: a transposed one, filter [k, k, oc, c]) with bias;
// fully connected layers are 1x1 convolutions of 1x1 maps.
struct Layer {
  int kernel = 1, stride = 1, pad = 0, c = 0, oc = 0;
  bool deconv = false;
  int64_t w = 0, b = 0;  // parameter offsets of the weights and the bias
  int64_t weights() const { return int64_t{kernel} * kernel * c * oc; }
};

struct Op {
  OpKind kind = OpKind::kConv;
  int in = 0, in2 = -1, out = 0;
  int layer = -1;                       // kConv
  int kernel = 1, stride = 1, pad = 0;  // kMaxPool
};

uint64_t Mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double Huber(double d, double delta, double* grad) {
  const double a = std::abs(d);
  if (a <= delta) {
    *grad = d;
    return 0.5 * d * d;
  }
  *grad = d > 0 ? delta : -delta;
  return delta * (a - 0.5 * delta);
}

// The kernels' Conv2dShape or Deconv2dShape of a layer on x [n, h, w, c].
template <typename WindowShape>
WindowShape ShapeOf(const Layer& l, int64_t n, int h, int w) {
  WindowShape s;
  s.n = n;
  s.h = h;
  s.w = w;
  s.c = l.c;
  s.oc = l.oc;
  s.kh = s.kw = l.kernel;
  s.stride = l.stride;
  s.pad = l.pad;
  return s;
}

// y [n, oh, ow, oc] = layer(x [n, h, w, c]).
void LayerForward(const Layer& l, const float* p, int64_t n, int h, int w, const float* x, float* y,
                  kernels::Precision prec) {
  int64_t rows = 0;
  if (l.deconv) {
    const auto s = ShapeOf<kernels::Deconv2dShape>(l, n, h, w);
    kernels::Deconv2dForward(s, x, p + l.w, y, prec, 1);
    rows = n * s.OutH() * s.OutW();
  } else {
    const auto s = ShapeOf<kernels::Conv2dShape>(l, n, h, w);
    kernels::Conv2dForward(s, x, p + l.w, y, prec, 1);
    rows = n * s.OutH() * s.OutW();
  }
  kernels::AddBias(p + l.b, y, rows, l.oc);
}

// Adds the layer's weight and bias gradients to `grads` and, when dx is not
// null, its input gradient to dx.
void LayerBackward(const Layer& l, const float* p, int64_t n, int h, int w, const float* x, const float* dy,
                   float* dx, float* grads, std::vector<float>& tmp, kernels::Precision prec) {
  int64_t rows = 0;
  tmp.resize(static_cast<size_t>(std::max<int64_t>({l.weights(), int64_t{l.oc}, n * h * w * l.c})));
  if (l.deconv) {
    const auto s = ShapeOf<kernels::Deconv2dShape>(l, n, h, w);
    rows = n * s.OutH() * s.OutW();
    kernels::Deconv2dBackwardFilter(s, x, dy, tmp.data(), prec, 1);
    kernels::Axpy(1.f, tmp.data(), grads + l.w, l.weights());
    if (dx) {
      kernels::Deconv2dBackwardData(s, dy, p + l.w, tmp.data(), prec, 1);
      kernels::Axpy(1.f, tmp.data(), dx, n * h * w * l.c);
    }
  } else {
    const auto s = ShapeOf<kernels::Conv2dShape>(l, n, h, w);
    rows = n * s.OutH() * s.OutW();
    kernels::Conv2dBackwardFilter(s, x, dy, tmp.data(), prec, 1);
    kernels::Axpy(1.f, tmp.data(), grads + l.w, l.weights());
    if (dx) {
      kernels::Conv2dBackwardData(s, dy, p + l.w, tmp.data(), prec, 1);
      kernels::Axpy(1.f, tmp.data(), dx, n * h * w * l.c);
    }
  }
  kernels::BiasGrad(dy, tmp.data(), rows, l.oc);
  kernels::Axpy(1.f, tmp.data(), grads + l.b, l.oc);
}

kernels::Pool2dShape PoolShape(const Op& op, int64_t n, const Shape& x) {
  kernels::Pool2dShape s;
  s.n = n;
  s.h = x.h;
  s.w = x.w;
  s.c = x.c;
  s.kh = s.kw = op.kernel;
  s.stride = op.stride;
  s.pad = op.pad;
  return s;
}

// The max pool of `op` on a window input of `rows` rows built with the op's
// padding columns (functional::BuildWindowInput): run unpadded.
kernels::Pool2dShape WindowPoolShape(const Op& op, int64_t n, int rows, const Shape& x) {
  kernels::Pool2dShape s = PoolShape(op, n, x);
  s.h = rows;
  s.w = x.w + 2 * op.pad;
  s.pad = 0;
  return s;
}

// dx += dy where the ReLU's output y is positive.
void ReluBackwardAdd(const float* y, const float* dy, float* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (y[i] > 0) dx[i] += dy[i];
  }
}

// The model's input: pixels scaled to [-1, 1].
void ToInput(const data::Image& im, float* dst) {
  for (size_t p = 0; p < im.pixels.size(); ++p) dst[p] = static_cast<float>(im.pixels[p]) / 127.5f - 1.f;
}

// Pastes a 28x28 probability map over `box` into an S x S mask (see Instance).
void PasteMask(const float* prob, const Box& box, int S, std::vector<uint8_t>& mask) {
  mask.assign(static_cast<size_t>(S) * S, 0);
  const double w = box.width(), h = box.height();
  if (!(w > 0 && h > 0)) return;
  auto axis = [](double v, int* lo, int* hi, double* f) {
    v = std::clamp(v, 0.0, double(kMaskOut - 1));
    *lo = static_cast<int>(std::floor(v));
    *hi = std::min(*lo + 1, kMaskOut - 1);
    *f = v - *lo;
  };
  for (int y = std::max(0, static_cast<int>(std::floor(box.y0))); y < std::min(S, static_cast<int>(std::ceil(box.y1))); ++y) {
    const double cy = y + 0.5;
    if (cy < box.y0 || cy >= box.y1) continue;
    int y0, y1;
    double fy;
    axis((cy - box.y0) / h * kMaskOut - 0.5, &y0, &y1, &fy);
    for (int x = std::max(0, static_cast<int>(std::floor(box.x0))); x < std::min(S, static_cast<int>(std::ceil(box.x1))); ++x) {
      const double cx = x + 0.5;
      if (cx < box.x0 || cx >= box.x1) continue;
      int x0, x1;
      double fx;
      axis((cx - box.x0) / w * kMaskOut - 0.5, &x0, &x1, &fx);
      const double v = (1 - fy) * ((1 - fx) * prob[y0 * kMaskOut + x0] + fx * prob[y0 * kMaskOut + x1]) +
                       fy * ((1 - fx) * prob[y1 * kMaskOut + x0] + fx * prob[y1 * kMaskOut + x1]);
      if (v >= 0.5) mask[static_cast<size_t>(y) * S + static_cast<size_t>(x)] = 1;
    }
  }
}

}  // namespace

// The network: the first stage as ops on numbered per-image tensors, the
// heads as layers applied to ROI batches.
struct FunctionalMaskRcnn::Net {
  std::vector<Shape> tensors;  // tensor 0 is the image
  std::vector<Op> ops;
  std::vector<Layer> layers;
  int p_level[kLevels] = {};    // P2..P6
  int rpn_out[kLevels] = {};    // per level: [h, w, 5 A] (A logits, then A x 4 deltas)
  int fc6 = 0, fc7 = 0, cls = 0, box = 0, mask_conv[kMaskConvs] = {}, deconv = 0, mask_out = 0;
  int64_t num_params = 0;
  int per_location = 3;
  std::vector<std::vector<Box>> anchors;  // per level
  std::vector<Box> all_anchors;           // levels concatenated
  std::vector<int> anchor_level, anchor_pos, anchor_a;  // per anchor of all_anchors

  int AddTensor(Shape s) {
    tensors.push_back(s);
    return static_cast<int>(tensors.size()) - 1;
  }
  int AddLayer(std::vector<ParamBlock>& blocks, const std::string& name, int kernel, int stride, int pad, int c,
               int oc, bool transposed = false) {
    Layer l{kernel, stride, pad, c, oc, transposed, num_params, 0};
    num_params += l.weights();
    l.b = num_params;
    num_params += oc;
    blocks.push_back({name, l.w, l.weights(), false});
    blocks.push_back({name + ".bias", l.b, oc, true});
    layers.push_back(l);
    return static_cast<int>(layers.size()) - 1;
  }
  int Conv(int in, int layer) {
    const Layer& l = layers[static_cast<size_t>(layer)];
    const Shape& x = tensors[static_cast<size_t>(in)];
    Op op;
    op.kind = OpKind::kConv;
    op.in = in;
    op.layer = layer;
    op.out = AddTensor({(x.h + 2 * l.pad - l.kernel) / l.stride + 1, (x.w + 2 * l.pad - l.kernel) / l.stride + 1, l.oc});
    ops.push_back(op);
    return op.out;
  }
  int Unary(OpKind kind, int in, Shape out) {
    Op op;
    op.kind = kind;
    op.in = in;
    op.out = AddTensor(out);
    ops.push_back(op);
    return op.out;
  }
  int Relu(int in) { return Unary(OpKind::kRelu, in, tensors[static_cast<size_t>(in)]); }
  int Add(int a, int b) {
    Op op;
    op.kind = OpKind::kAdd;
    op.in = a;
    op.in2 = b;
    op.out = AddTensor(tensors[static_cast<size_t>(a)]);
    ops.push_back(op);
    return op.out;
  }
  int MaxPool(int in, int kernel, int stride, int pad) {
    const Shape& x = tensors[static_cast<size_t>(in)];
    Op op;
    op.kind = OpKind::kMaxPool;
    op.in = in;
    op.kernel = kernel;
    op.stride = stride;
    op.pad = pad;
    op.out = AddTensor({(x.h + 2 * pad - kernel) / stride + 1, (x.w + 2 * pad - kernel) / stride + 1, x.c});
    ops.push_back(op);
    return op.out;
  }
  int Upsample(int in) {
    const Shape& x = tensors[static_cast<size_t>(in)];
    return Unary(OpKind::kUpsample, in, {2 * x.h, 2 * x.w, x.c});
  }
};

struct FunctionalMaskRcnn::Samples {
  detection::RpnTargets rpn;
  detection::SampledRois rois;
  std::vector<int> mask_rois;        // indices into rois.rois: the foreground ones
  std::vector<float> mask_targets;   // [mask_rois, 28, 28]
};

struct FunctionalMaskRcnn::Core {
  std::vector<std::vector<float>> act, grad;  // per plan tensor: this core's part
  std::vector<float> tmp, ext, dext;
  std::vector<Samples> samples;  // the replica's core 0: per image of the replica
  // Second stage: ROI batches of the replica's images, and their gradients.
  std::vector<float> roi7, fc6, fc7, cls, box, droi7, dfc6, dfc7, dcls, dbox;
  std::vector<float> roi14, mconv[kMaskConvs], dec, mout, droi14, dmconv[kMaskConvs], ddec, dmout;
  LossParts loss;  // sums over the replica's images of the parts this core computes
  Status error;    // of a collective in this step
  Status sample_status;  // the replica's core 0: of drawing this step's samples
};

namespace {

// A step of FunctionalMaskRcnn::Plan: an op of the first stage, or a gather.
struct FirstStageStep {
  StepKind kind = StepKind::kOp;
  int op = -1;                    // kOp: index into Net::ops
  int in = 0, in2 = -1, out = 0;  // plan tensors
  bool replicated = false;        // computes the whole output on every core
  functional::WindowPlan window;  // conv, max pool, upsample (k = 1 when replicated)
};

}  // namespace

// How the first stage runs over the k cores of a replica
// (functional::StripPlan): an op runs replicated only when its window
// reaches past a neighbour's strip (its input gathered first); an op reading
// a replicated tensor computes just its own rows, so the tensors after it
// are strips again. The levels and RPN outputs the second stage reads are
// gathered at the end.
struct FunctionalMaskRcnn::Plan : functional::StripPlan<Shape, FirstStageStep> {
  using Step = FirstStageStep;
  int p_level[kLevels] = {}, rpn_out[kLevels] = {};  // whole tensors: what the second stage reads

  static Plan Make(const Net& net, int k) {
    Plan p;
    p.k = k;
    std::vector<int> map(net.tensors.size(), -1), gathered(net.tensors.size(), -1);
    map[0] = p.Add(net.tensors[0], false);
    auto whole = [&](int nt) { return p.Whole(map[static_cast<size_t>(nt)], gathered[static_cast<size_t>(nt)]); };
    for (size_t oi = 0; oi < net.ops.size(); ++oi) {
      const Op& op = net.ops[oi];
      const Shape& x = net.tensors[static_cast<size_t>(op.in)];
      const Shape& y = net.tensors[static_cast<size_t>(op.out)];
      Step s;
      s.op = static_cast<int>(oi);
      s.in = map[static_cast<size_t>(op.in)];
      const bool in_rep = p.replicated[static_cast<size_t>(s.in)];
      bool rep = false;
      if (op.kind == OpKind::kRelu || op.kind == OpKind::kAdd) {
        if (op.in2 >= 0) s.in2 = map[static_cast<size_t>(op.in2)];
        rep = in_rep && (s.in2 < 0 || p.replicated[static_cast<size_t>(s.in2)]);
      } else {
        auto plan = [&](int cores) {
          if (op.kind == OpKind::kUpsample) return functional::PlanUpsample(x.h, 2, cores);
          if (op.kind == OpKind::kMaxPool) return functional::PlanWindow(x.h, y.h, cores, op.kernel, op.stride, op.pad);
          const Layer& l = net.layers[static_cast<size_t>(op.layer)];
          return functional::PlanWindow(x.h, y.h, cores, l.kernel, l.stride, l.pad);
        };
        s.window = plan(k);
        if (in_rep) {  // every core reads its rows from the whole input
          s.window.partitionable = true;
          s.window.halo = 0;
        } else if (!s.window.partitionable) {
          rep = true;
          s.in = whole(op.in);
          s.window = plan(1);
        }
      }
      s.replicated = rep;
      s.out = map[static_cast<size_t>(op.out)] = p.Add(y, rep);
      p.steps.push_back(s);
    }
    for (int l = 0; l < kLevels; ++l) {
      p.p_level[l] = whole(net.p_level[l]);
      p.rpn_out[l] = whole(net.rpn_out[l]);
    }
    return p;
  }
};

// The replica groups and one buffer per step that exchanges or gathers
// (k > 1), holding every local core.
struct FunctionalMaskRcnn::Comms {
  std::optional<topology::LogicalTopology> replica;
  std::vector<std::unique_ptr<topology::CoreBuffers>> step;
};

Status FunctionalConfig::Validate() const {
  auto bad = [](const std::string& f, const std::string& why) {
    return Status::InvalidArgument("maskrcnn functional: " + f + " " + why);
  };
  if (image_size < 64 || image_size % 64 != 0) return bad("image_size", "must be a positive multiple of 64");
  if (classes < 1) return bad("classes", "must be >= 1");
  if (width < 1 || fpn_channels < 1 || fc_channels < 1 || mask_channels < 1) {
    return bad("width, fpn_channels, fc_channels and mask_channels", "must be >= 1");
  }
  if (gt_mask_size < 1) return bad("gt_mask_size", "must be >= 1");
  if (!(anchor_scale > 0)) return bad("anchor_scale", "must be > 0");
  if (global_batch < 1) return bad("global_batch", "must be >= 1");
  if (spatial_partitions != 1 && spatial_partitions != 2 && spatial_partitions != 4) {
    return bad("spatial_partitions", "must be 1, 2 or 4, not " + std::to_string(spatial_partitions));
  }
  return Status::Ok();
}

double LearningRate(const SgdSchedule& s, int64_t step) {
  if (step < s.warmup_steps) {
    return s.warmup_init + (s.base_lr - s.warmup_init) * static_cast<double>(step) / static_cast<double>(s.warmup_steps);
  }
  if (step >= s.drop_steps[1]) return s.base_lr * s.drop_factor[1];
  if (step >= s.drop_steps[0]) return s.base_lr * s.drop_factor[0];
  return s.base_lr;
}

Result<MaskBatch> MakeShapesBatch(const detection::ShapesSpec& spec, uint64_t first_index, int64_t count,
                                  const FunctionalConfig& config) {
  PODBENCH_RETURN_IF_ERROR(spec.Validate());
  PODBENCH_RETURN_IF_ERROR(config.Validate());
  if (spec.height != config.image_size || spec.width != config.image_size) {
    return Status::InvalidArgument("maskrcnn functional: the shapes spec's sides must equal image_size " +
                                   std::to_string(config.image_size));
  }
  if (spec.classes > config.classes) {
    return Status::InvalidArgument("maskrcnn functional: the shapes spec's classes exceed the model's " +
                                   std::to_string(config.classes));
  }
  if (count < 0) return Status::InvalidArgument("maskrcnn functional: count must be >= 0");
  const int S = config.image_size, G = config.gt_mask_size, P = G + 2 * detection::kMaskBorder;
  MaskBatch b;
  b.images.resize(static_cast<size_t>(count) * S * S * 3);
  b.truth.resize(static_cast<size_t>(count));
  std::vector<float> mask(static_cast<size_t>(S) * S);
  for (int64_t i = 0; i < count; ++i) {
    const detection::ShapesImage im = detection::MakeShapesImage(spec, first_index + static_cast<uint64_t>(i), true);
    ToInput(im.image, b.images.data() + static_cast<size_t>(i) * S * S * 3);
    GroundTruth& t = b.truth[static_cast<size_t>(i)];
    for (const detection::ShapeObject& o : im.objects) {
      t.boxes.push_back(o.box);
      t.classes.push_back(o.label);
      for (size_t p = 0; p < mask.size(); ++p) mask[p] = o.mask[p];
      t.padded_masks.resize(t.padded_masks.size() + static_cast<size_t>(P) * P);
      PODBENCH_RETURN_IF_ERROR(
          detection::CropGtMask(mask.data(), S, S, o.box, G, t.padded_masks.data() + t.padded_masks.size() - P * P));
    }
  }
  return b;
}

FunctionalMaskRcnn::FunctionalMaskRcnn() = default;
FunctionalMaskRcnn::~FunctionalMaskRcnn() = default;

Result<std::unique_ptr<FunctionalMaskRcnn>> FunctionalMaskRcnn::Create(const FunctionalConfig& config) {
  std::unique_ptr<FunctionalMaskRcnn> m(new FunctionalMaskRcnn());
  PODBENCH_RETURN_IF_ERROR(m->Setup(config));
  return m;
}

const float* FunctionalMaskRcnn::gradient() const { return dp_->summed_gradient(dp_->local_cores().begin); }

FunctionalMaskRcnn::FirstStageLayout FunctionalMaskRcnn::first_stage_layout() const {
  FirstStageLayout f;
  for (const Plan::Step& s : train_plan_->steps) {
    if (s.kind == StepKind::kGather) {
      ++f.gathers;
      continue;
    }
    ++(s.replicated ? f.replicated_ops : f.split_ops);
    if (s.window.halo > 0) ++f.halo_exchanges;
  }
  return f;
}

bool FunctionalMaskRcnn::IsLocalImage(int64_t row) const {
  return dp_->IsLocalReplicaRow(row, cfg_.global_batch, cfg_.spatial_partitions);
}

void ShapesInput(const data::Image& image, float* dst) { ToInput(image, dst); }

int64_t FunctionalMaskRcnn::anchors_per_image() const { return static_cast<int64_t>(net_->all_anchors.size()); }

Status FunctionalMaskRcnn::Setup(const FunctionalConfig& config) {
  cfg_ = config;
  PODBENCH_RETURN_IF_ERROR(cfg_.Validate());
  net_ = std::make_unique<Net>();
  Net& n = *net_;
  const int S = cfg_.image_size, w = cfg_.width, Fc = cfg_.fpn_channels;
  // Backbone.
  n.AddTensor({S, S, 3});
  int x = n.Relu(n.Conv(0, n.AddLayer(blocks_, "conv0", 7, 2, 3, 3, w)));
  x = n.MaxPool(x, 3, 2, 1);
  int c_level[4] = {};
  int channels = w;
  for (int stage = 0; stage < 4; ++stage) {
    const int oc = w << stage, stride = stage == 0 ? 1 : 2;
    const std::string name = "res" + std::to_string(stage + 2);
    const int a = n.Relu(n.Conv(x, n.AddLayer(blocks_, name + ".conv1", 3, stride, 1, channels, oc)));
    const int b = n.Conv(a, n.AddLayer(blocks_, name + ".conv2", 3, 1, 1, oc, oc));
    int shortcut = x;
    if (stride != 1 || oc != channels) shortcut = n.Conv(x, n.AddLayer(blocks_, name + ".shortcut", 1, stride, 0, channels, oc));
    x = c_level[stage] = n.Relu(n.Add(b, shortcut));
    channels = oc;
  }
  // FPN.
  int top = -1, t_level[4] = {};
  for (int l = 3; l >= 0; --l) {
    const int lat = n.Conv(c_level[l], n.AddLayer(blocks_, "fpn.lateral" + std::to_string(l + 2), 1, 1, 0,
                                                   n.tensors[static_cast<size_t>(c_level[l])].c, Fc));
    top = t_level[l] = top < 0 ? lat : n.Add(lat, n.Upsample(top));
  }
  for (int l = 0; l < 4; ++l) {
    n.p_level[l] = n.Conv(t_level[l], n.AddLayer(blocks_, "fpn.post" + std::to_string(l + 2), 3, 1, 1, Fc, Fc));
  }
  n.p_level[4] = n.MaxPool(n.p_level[3], 1, 2, 0);
  // RPN, shared by every level.
  const int A = n.per_location;
  const int rpn_conv = n.AddLayer(blocks_, "rpn.conv", 3, 1, 1, Fc, Fc);
  const int rpn_out = n.AddLayer(blocks_, "rpn.out", 1, 1, 0, Fc, 5 * A);
  for (int l = 0; l < kLevels; ++l) n.rpn_out[l] = n.Conv(n.Relu(n.Conv(n.p_level[l], rpn_conv)), rpn_out);
  // Heads.
  const int C1 = cfg_.classes + 1, fc = cfg_.fc_channels, M = cfg_.mask_channels;
  n.fc6 = n.AddLayer(blocks_, "box.fc6", 1, 1, 0, kBoxRoi * kBoxRoi * Fc, fc);
  n.fc7 = n.AddLayer(blocks_, "box.fc7", 1, 1, 0, fc, fc);
  n.cls = n.AddLayer(blocks_, "box.class", 1, 1, 0, fc, C1);
  n.box = n.AddLayer(blocks_, "box.box", 1, 1, 0, fc, 4 * C1);
  for (int i = 0; i < kMaskConvs; ++i) {
    n.mask_conv[i] = n.AddLayer(blocks_, "mask.conv" + std::to_string(i + 1), 3, 1, 1, i == 0 ? Fc : M, M);
  }
  n.deconv = n.AddLayer(blocks_, "mask.deconv", 2, 2, 0, M, M, true);
  n.mask_out = n.AddLayer(blocks_, "mask.out", 1, 1, 0, M, C1);

  // Anchors.
  detection::FpnAnchorConfig ac;
  ac.anchor_scale = cfg_.anchor_scale;
  ac.image_height = ac.image_width = S;
  PODBENCH_RETURN_IF_ERROR(ac.Validate());
  n.anchors = detection::MakeFpnAnchors(ac);
  for (int l = 0; l < kLevels; ++l) {
    const auto& lv = n.anchors[static_cast<size_t>(l)];
    const Shape& ps = n.tensors[static_cast<size_t>(n.rpn_out[l])];
    if (static_cast<int64_t>(lv.size()) != int64_t{ps.h} * ps.w * A) {
      return Status::Internal("maskrcnn functional: level " + std::to_string(l + kMinLevel) +
                              "'s anchors do not match its RPN output");
    }
    for (size_t i = 0; i < lv.size(); ++i) {
      n.all_anchors.push_back(lv[i]);
      n.anchor_level.push_back(l);
      n.anchor_pos.push_back(static_cast<int>(i) / A);
      n.anchor_a.push_back(static_cast<int>(i) % A);
    }
  }

  // Cores.
  const topology::SystemSpec& sys = cfg_.system ? *cfg_.system : topology::DefaultSystem();
  if (!cfg_.slice.empty()) {
    PODBENCH_ASSIGN_OR_RETURN(auto slice, topology::Slice::FromName(cfg_.slice, sys));
    cores_ = slice.num_cores();
  }
  const int k = cfg_.spatial_partitions;
  if (cores_ % k != 0) {
    return Status::InvalidArgument("maskrcnn functional: spatial_partitions " + std::to_string(k) + " must divide the " +
                                   std::to_string(cores_) + " cores");
  }
  if (cfg_.global_batch % replicas() != 0) {
    return Status::InvalidArgument("maskrcnn functional: global_batch " + std::to_string(cfg_.global_batch) +
                                   " must be a multiple of the " + std::to_string(replicas()) + " replicas");
  }
  functional::DataParallelConfig dpc;
  dpc.cores = cores_;
  dpc.slice = cfg_.slice;
  dpc.system = &sys;
  dpc.allreduce = cfg_.allreduce;
  dpc.ranks = cfg_.ranks;
  PODBENCH_ASSIGN_OR_RETURN(dp_, functional::DataParallel::Create(dpc, n.num_params));
  train_plan_ = std::make_unique<Plan>(Plan::Make(n, k));
  eval_plan_ = std::make_unique<Plan>(Plan::Make(n, 1));
  const Plan& tp = *train_plan_;
  comms_ = std::make_unique<Comms>();
  if (k > 1) {
    const topology::CoreBlock local = dp_->local_cores();
    const int64_t per_replica = cfg_.global_batch / replicas();
    PODBENCH_ASSIGN_OR_RETURN(comms_->replica, topology::LogicalTopology::ReplicaGroups(dp_->slice(), k, 1));
    comms_->step.resize(tp.steps.size());
    for (size_t i = 0; i < tp.steps.size(); ++i) {
      const Plan::Step& st = tp.steps[i];
      const Shape& xs = tp.shape[static_cast<size_t>(st.in)];
      uint64_t elements = 0;
      if (st.kind == StepKind::kGather) {
        elements = static_cast<uint64_t>(per_replica * xs.elems());
      } else if (st.window.halo > 0) {
        elements = functional::HaloElements(per_replica, st.window.halo, static_cast<size_t>(xs.w) * xs.c);
      }
      if (elements > 0) {
        comms_->step[i] = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, elements, local.begin, local.end);
      }
    }
  }
  core_.resize(static_cast<size_t>(cores_));
  for (int c = 0; c < cores_; ++c) {
    auto core = std::make_unique<Core>();
    core->act.resize(tp.shape.size());
    core->grad.resize(tp.shape.size());
    core_[static_cast<size_t>(c)] = std::move(core);
  }
  eval_core_ = std::make_unique<Core>();
  eval_core_->act.resize(eval_plan_->shape.size());

  // Initial weights: He normal (fan in), biases 0; the RPN's and box
  // head's predictors normal with std 0.01 (box deltas 0.001), as Google's.
  params_.assign(static_cast<size_t>(n.num_params), 0.f);
  momentum_.assign(params_.size(), 0.f);
  std::mt19937_64 rng(cfg_.seed);
  for (size_t i = 0; i < n.layers.size(); ++i) {
    const Layer& l = n.layers[i];
    double std = std::sqrt(2.0 / (double(l.kernel) * l.kernel * l.c));
    if (static_cast<int>(i) == rpn_out || static_cast<int>(i) == n.cls) std = 0.01;
    if (static_cast<int>(i) == n.box) std = 0.001;
    std::normal_distribution<float> d(0.f, static_cast<float>(std));
    for (int64_t j = 0; j < l.weights(); ++j) params_[static_cast<size_t>(l.w + j)] = d(rng);
  }
  return Status::Ok();
}

Result<LossParts> FunctionalMaskRcnn::ComputeGradients(const MaskBatch& batch, uint64_t step) {
  return Run(batch, step, true);
}

Result<LossParts> FunctionalMaskRcnn::ComputeLoss(const MaskBatch& batch, uint64_t step) {
  return Run(batch, step, false);
}

Result<LossParts> FunctionalMaskRcnn::Run(const MaskBatch& batch, uint64_t step, bool backward) {
  const int64_t B = cfg_.global_batch, S = cfg_.image_size;
  const size_t P = static_cast<size_t>(cfg_.gt_mask_size + 2 * detection::kMaskBorder);
  if (batch.images.size() != static_cast<size_t>(B * S * S * 3) || batch.truth.size() != static_cast<size_t>(B)) {
    return Status::InvalidArgument("maskrcnn functional: a batch of " + std::to_string(B) + " images of " +
                                   std::to_string(S) + "x" + std::to_string(S) + " with ground truth was expected");
  }
  for (size_t i = 0; i < batch.truth.size(); ++i) {
    const GroundTruth& t = batch.truth[i];
    const std::string at = "maskrcnn functional: image " + std::to_string(i) + "'s ground truth ";
    if (t.classes.size() != t.boxes.size() || t.padded_masks.size() != t.boxes.size() * P * P) {
      return Status::InvalidArgument(at + "needs one class and one padded mask per box");
    }
    for (int c : t.classes) {
      if (c < 1 || c > cfg_.classes) return Status::InvalidArgument(at + "has a class outside 1.." + std::to_string(cfg_.classes));
    }
    for (const Box& b : t.boxes) {
      if (b.Empty() || !std::isfinite(b.x0 + b.x1 + b.y0 + b.y1)) return Status::InvalidArgument(at + "has an empty box");
    }
  }
  if (frozen_ && core_[static_cast<size_t>(dp_->local_cores().begin)]->samples.empty()) {
    return Status::FailedPrecondition("maskrcnn functional: samples are frozen before any were drawn");
  }
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore([&](int c) { return ReplicaStep(c, batch, step, backward); }));
  if (backward) PODBENCH_RETURN_IF_ERROR(dp_->SumGradients());
  // Each part summed over the cores in core order, the other ranks' cores'
  // sums brought from them, so every rank returns the same losses.
  LossParts sum;
  std::vector<double> part(static_cast<size_t>(cores_));
  for (double LossParts::*field : {&LossParts::rpn_class, &LossParts::rpn_box, &LossParts::frcnn_class,
                                   &LossParts::frcnn_box, &LossParts::mask}) {
    for (int c = 0; c < cores_; ++c) part[static_cast<size_t>(c)] = core_[static_cast<size_t>(c)]->loss.*field;
    PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(part));
    for (double v : part) sum.*field += v;
  }
  const double inv = 1.0 / static_cast<double>(B);
  return LossParts{sum.rpn_class * inv, sum.rpn_box * inv, sum.frcnn_class * inv, sum.frcnn_box * inv,
                   sum.mask * inv};
}

namespace {

// Row `row` (a row of the whole tensor) of image `img` in core `pos`'s part
// of plan tensor t. REQUIRES: the core holds the row.
template <typename V>
auto RowAt(V& v, const FunctionalMaskRcnn::Plan& plan, int t, int pos, int64_t img, int row) {
  const functional::RowRange r = plan.Rows(t, pos);
  const Shape& s = plan.shape[static_cast<size_t>(t)];
  return v.data() + ((static_cast<size_t>(img) * static_cast<size_t>(r.size()) + static_cast<size_t>(row - r.begin)) *
                     static_cast<size_t>(s.w) * static_cast<size_t>(s.c));
}

}  // namespace

void FunctionalMaskRcnn::Collective(Core& core, int c, size_t step, const char* algorithm) {
  Status s = dp_->CollectiveInStep(c, algorithm, *comms_->replica, *comms_->step[step]);
  if (!s.ok() && core.error.ok()) core.error = s;
}

void FunctionalMaskRcnn::ForwardFirstStage(const Plan& plan, Core& core, int c, const float* images, int64_t n) {
  const Net& net = *net_;
  const float* p = params_.data();
  const kernels::Precision prec = cfg_.precision;
  const int pos = plan.k == 1 ? 0 : c % plan.k;
  for (size_t t = 0; t < plan.shape.size(); ++t) core.act[t].resize(plan.Local(static_cast<int>(t), pos, n));
  {
    const Shape& s = plan.shape[0];
    functional::CopyStrip(images, plan.Rows(0, pos), s.h, static_cast<size_t>(s.w) * s.c, n, core.act[0].data());
  }
  for (size_t si = 0; si < plan.steps.size(); ++si) {
    const Plan::Step& s = plan.steps[si];
    const Shape& xs = plan.shape[static_cast<size_t>(s.in)];
    const Shape& ys = plan.shape[static_cast<size_t>(s.out)];
    const functional::RowRange own = plan.Rows(s.in, pos), rows = plan.Rows(s.out, pos);
    const float* x = core.act[static_cast<size_t>(s.in)].data();
    float* y = core.act[static_cast<size_t>(s.out)].data();
    const size_t xrow = static_cast<size_t>(xs.w) * xs.c, yrow = static_cast<size_t>(ys.w) * ys.c;
    if (s.kind == StepKind::kGather) {
      float* buf = reinterpret_cast<float*>(comms_->step[si]->Data(c));
      std::fill(buf, buf + comms_->step[si]->elements(), 0.f);
      functional::PlaceStrip(x, own, xs.h, xrow, n, buf);
      Collective(core, c, si, "ring");
      std::memcpy(y, buf, core.act[static_cast<size_t>(s.out)].size() * sizeof(float));
      continue;
    }
    const Op& op = net.ops[static_cast<size_t>(s.op)];
    switch (op.kind) {
      case OpKind::kRelu:
        for (int64_t img = 0; img < n; ++img) {
          if (rows.empty()) break;
          kernels::Relu(RowAt(core.act[static_cast<size_t>(s.in)], plan, s.in, pos, img, rows.begin),
                        RowAt(core.act[static_cast<size_t>(s.out)], plan, s.out, pos, img, rows.begin),
                        static_cast<int64_t>(rows.size() * yrow));
        }
        break;
      case OpKind::kAdd:
        for (int64_t img = 0; img < n; ++img) {
          if (rows.empty()) break;
          kernels::Add(RowAt(core.act[static_cast<size_t>(s.in)], plan, s.in, pos, img, rows.begin),
                       RowAt(core.act[static_cast<size_t>(s.in2)], plan, s.in2, pos, img, rows.begin),
                       RowAt(core.act[static_cast<size_t>(s.out)], plan, s.out, pos, img, rows.begin),
                       static_cast<int64_t>(rows.size() * yrow));
        }
        break;
      case OpKind::kConv:
      case OpKind::kMaxPool:
      case OpKind::kUpsample: {
        const int wi = s.replicated ? 0 : pos;
        const int halo = s.window.halo;
        float* hbuf = nullptr;
        if (halo > 0) {
          hbuf = reinterpret_cast<float*>(comms_->step[si]->Data(c));
          functional::PackHalo(x, own, halo, n, xrow, hbuf);
          Collective(core, c, si, "halo_exchange");
        }
        const functional::RowRange out = s.window.out[static_cast<size_t>(wi)];
        if (out.empty()) break;
        const int lo = s.window.lo[static_cast<size_t>(wi)], hi = s.window.hi[static_cast<size_t>(wi)];
        const bool direct = own.begin == 0 && own.end == xs.h && out.begin == 0 && out.end == ys.h;
        if (op.kind == OpKind::kUpsample) {
          functional::BuildWindowInput(x, own, hbuf, halo, xs.h, xs.w, xs.c, 0, lo, hi, n, 0.f, core.ext);
          for (int64_t img = 0; img < n; ++img) {
            for (int i = out.begin; i < out.end; ++i) {
              for (int j = 0; j < ys.w; ++j) {
                std::memcpy(y + ((static_cast<size_t>(img) * out.size() + static_cast<size_t>(i - out.begin)) * ys.w + j) * ys.c,
                            core.ext.data() + ((static_cast<size_t>(img) * (hi - lo) + static_cast<size_t>(i / 2 - lo)) * xs.w + j / 2) * xs.c,
                            static_cast<size_t>(xs.c) * sizeof(float));
              }
            }
          }
        } else if (op.kind == OpKind::kConv) {
          const Layer& l = net.layers[static_cast<size_t>(op.layer)];
          if (direct) {
            LayerForward(l, p, n, xs.h, xs.w, x, y, prec);
          } else {
            functional::BuildWindowInput(x, own, hbuf, halo, xs.h, xs.w, xs.c, l.pad, lo, hi, n, 0.f, core.ext);
            Layer unpadded = l;
            unpadded.pad = 0;
            LayerForward(unpadded, p, n, hi - lo, xs.w + 2 * l.pad, core.ext.data(), y, prec);
          }
        } else if (direct) {
          kernels::MaxPoolForward(PoolShape(op, n, xs), x, y);
        } else {
          functional::BuildWindowInput(x, own, hbuf, halo, xs.h, xs.w, xs.c, op.pad, lo, hi, n,
                                       -std::numeric_limits<float>::infinity(), core.ext);
          kernels::MaxPoolForward(WindowPoolShape(op, n, hi - lo, xs), core.ext.data(), y);
        }
        break;
      }
    }
  }
}

void FunctionalMaskRcnn::BackwardFirstStage(const Plan& plan, Core& core, int c, int64_t n, float* grads) {
  const Net& net = *net_;
  const float* p = params_.data();
  const kernels::Precision prec = cfg_.precision;
  const int pos = plan.k == 1 ? 0 : c % plan.k;
  for (size_t si = plan.steps.size(); si-- > 0;) {
    const Plan::Step& s = plan.steps[si];
    const Shape& xs = plan.shape[static_cast<size_t>(s.in)];
    const Shape& ys = plan.shape[static_cast<size_t>(s.out)];
    const functional::RowRange own = plan.Rows(s.in, pos), rows = plan.Rows(s.out, pos);
    const float* x = core.act[static_cast<size_t>(s.in)].data();
    const float* dy = core.grad[static_cast<size_t>(s.out)].data();
    // The image needs no gradient. (A core's part of a tensor may be empty,
    // its data() null: what every core must agree on goes by need_dx.)
    const bool need_dx = s.in != 0;
    float* dx = core.grad[static_cast<size_t>(s.in)].data();
    const size_t xrow = static_cast<size_t>(xs.w) * xs.c, yrow = static_cast<size_t>(ys.w) * ys.c;
    if (s.kind == StepKind::kGather) {  // each core holds a part of the whole gradient: sum, keep the strip
      float* buf = reinterpret_cast<float*>(comms_->step[si]->Data(c));
      std::memcpy(buf, dy, core.grad[static_cast<size_t>(s.out)].size() * sizeof(float));
      Collective(core, c, si, "ring");
      if (need_dx) functional::AddStrip(buf, own, xs.h, xrow, n, dx);
      continue;
    }
    const Op& op = net.ops[static_cast<size_t>(s.op)];
    switch (op.kind) {
      case OpKind::kRelu:
        for (int64_t img = 0; img < n; ++img) {
          if (rows.empty()) break;
          ReluBackwardAdd(RowAt(core.act[static_cast<size_t>(s.out)], plan, s.out, pos, img, rows.begin),
                          RowAt(core.grad[static_cast<size_t>(s.out)], plan, s.out, pos, img, rows.begin),
                          RowAt(core.grad[static_cast<size_t>(s.in)], plan, s.in, pos, img, rows.begin),
                          static_cast<int64_t>(rows.size() * yrow));
        }
        break;
      case OpKind::kAdd:
        for (int64_t img = 0; img < n; ++img) {
          if (rows.empty()) break;
          const float* g = RowAt(core.grad[static_cast<size_t>(s.out)], plan, s.out, pos, img, rows.begin);
          const int64_t count = static_cast<int64_t>(rows.size() * yrow);
          kernels::Axpy(1.f, g, RowAt(core.grad[static_cast<size_t>(s.in)], plan, s.in, pos, img, rows.begin), count);
          kernels::Axpy(1.f, g, RowAt(core.grad[static_cast<size_t>(s.in2)], plan, s.in2, pos, img, rows.begin), count);
        }
        break;
      case OpKind::kConv:
      case OpKind::kMaxPool:
      case OpKind::kUpsample: {
        const int wi = s.replicated ? 0 : pos;
        const int halo = s.window.halo;
        float* hbuf = halo > 0 ? reinterpret_cast<float*>(comms_->step[si]->Data(c)) : nullptr;
        const functional::RowRange out = s.window.out[static_cast<size_t>(wi)];
        const int lo = s.window.lo[static_cast<size_t>(wi)], hi = s.window.hi[static_cast<size_t>(wi)];
        const bool direct = own.begin == 0 && own.end == xs.h && out.begin == 0 && out.end == ys.h;
        const int pad = op.kind == OpKind::kConv ? net.layers[static_cast<size_t>(op.layer)].pad
                        : op.kind == OpKind::kMaxPool ? op.pad : 0;
        // The window input's gradient (rows [lo, hi), padding columns
        // included) unless the op wrote dx directly.
        bool windowed = false;
        if (!out.empty()) {
          if (op.kind == OpKind::kConv && direct) {
            LayerBackward(net.layers[static_cast<size_t>(op.layer)], p, n, xs.h, xs.w, x, dy, need_dx ? dx : nullptr, grads,
                          core.tmp, prec);
          } else if (op.kind == OpKind::kMaxPool && direct) {
            core.dext.resize(static_cast<size_t>(n * xs.elems()));
            kernels::MaxPoolBackward(PoolShape(op, n, xs), x, dy, core.dext.data());
            if (need_dx) kernels::Axpy(1.f, core.dext.data(), dx, n * xs.elems());
          } else {
            windowed = true;
            const int We = xs.w + 2 * pad;
            functional::BuildWindowInput(x, own, hbuf, halo, xs.h, xs.w, xs.c, pad, lo, hi, n,
                                         op.kind == OpKind::kMaxPool ? -std::numeric_limits<float>::infinity() : 0.f,
                                         core.ext);
            core.dext.assign(static_cast<size_t>(n) * (hi - lo) * We * xs.c, 0.f);
            if (op.kind == OpKind::kConv) {
              Layer unpadded = net.layers[static_cast<size_t>(op.layer)];
              unpadded.pad = 0;
              LayerBackward(unpadded, p, n, hi - lo, We, core.ext.data(), dy, need_dx ? core.dext.data() : nullptr, grads,
                            core.tmp, prec);
            } else if (op.kind == OpKind::kMaxPool) {
              kernels::MaxPoolBackward(WindowPoolShape(op, n, hi - lo, xs), core.ext.data(), dy, core.dext.data());
            } else {
              for (int64_t img = 0; img < n; ++img) {
                for (int i = out.begin; i < out.end; ++i) {
                  for (int j = 0; j < ys.w; ++j) {
                    kernels::Axpy(1.f,
                                  dy + ((static_cast<size_t>(img) * out.size() + static_cast<size_t>(i - out.begin)) * ys.w + j) * ys.c,
                                  core.dext.data() + ((static_cast<size_t>(img) * (hi - lo) + static_cast<size_t>(i / 2 - lo)) * xs.w + j / 2) * xs.c,
                                  xs.c);
                  }
                }
              }
            }
          }
        }
        // Own rows into dx; halo rows back to the neighbours that own them
        // (every core of the replica meets at the exchange).
        if (need_dx) {
          functional::ScatterWindowGradient(windowed ? core.dext.data() : nullptr, own, xs.h, xs.w, xs.c, pad, lo, hi, n,
                                            halo, dx, hbuf);
        }
        if (halo > 0 && need_dx) {
          Collective(core, c, si, "halo_exchange");
          functional::AddReturnedHaloGradient(hbuf, own, halo, n, xrow, dx);
        }
        break;
      }
    }
  }
}

Result<std::vector<detection::Proposal>> FunctionalMaskRcnn::Propose(const Plan& plan, const Core& core, int64_t img,
                                                                   const detection::ProposalConfig& pc) const {
  const Net& net = *net_;
  const int A = net.per_location;
  std::vector<std::vector<float>> lg(kLevels), dl(kLevels);
  std::vector<detection::RpnLevelOutputs> levels;
  for (int l = 0; l < kLevels; ++l) {
    const Shape& rs = plan.shape[static_cast<size_t>(plan.rpn_out[l])];
    const int64_t hw = int64_t{rs.h} * rs.w;
    const float* o = core.act[static_cast<size_t>(plan.rpn_out[l])].data() + img * rs.elems();
    auto& L = lg[static_cast<size_t>(l)];
    auto& D = dl[static_cast<size_t>(l)];
    L.resize(static_cast<size_t>(hw * A));
    D.resize(static_cast<size_t>(hw * A * 4));
    for (int64_t q = 0; q < hw; ++q) {
      for (int a = 0; a < A; ++a) {
        L[static_cast<size_t>(q * A + a)] = o[q * 5 * A + a];
        for (int d = 0; d < 4; ++d) D[static_cast<size_t>((q * A + a) * 4 + d)] = o[q * 5 * A + A + 4 * a + d];
      }
    }
    levels.push_back({net.anchors[static_cast<size_t>(l)], L, D});
  }
  return detection::GenerateProposals(levels, cfg_.image_size, cfg_.image_size, pc);
}

detection::FeaturePyramid FunctionalMaskRcnn::Pyramid(int64_t n) const {
  detection::FeaturePyramid pyr;
  pyr.min_level = kMinLevel;
  pyr.n = n;
  pyr.c = cfg_.fpn_channels;
  for (int l = 0; l < kLevels; ++l) {
    const Shape& ps = net_->tensors[static_cast<size_t>(net_->p_level[l])];
    pyr.heights.push_back(ps.h);
    pyr.widths.push_back(ps.w);
  }
  return pyr;
}

Status FunctionalMaskRcnn::ForwardBoxHead(Core& core, const detection::FeaturePyramid& pyr,
                                          std::span<const float* const> levels,
                                          std::span<const detection::Roi> rois) const {
  const Net& net = *net_;
  const float* p = params_.data();
  const kernels::Precision prec = cfg_.precision;
  const int64_t R = static_cast<int64_t>(rois.size());
  const int Fc = cfg_.fpn_channels, fc = cfg_.fc_channels, C1 = cfg_.classes + 1;
  const Layer& L6 = net.layers[static_cast<size_t>(net.fc6)];
  const Layer& L7 = net.layers[static_cast<size_t>(net.fc7)];
  const Layer& Lc = net.layers[static_cast<size_t>(net.cls)];
  const Layer& Lb = net.layers[static_cast<size_t>(net.box)];
  core.roi7.resize(static_cast<size_t>(R * kBoxRoi * kBoxRoi * Fc));
  PODBENCH_RETURN_IF_ERROR(detection::MultilevelRoiAlign(pyr, levels, rois, kBoxRoi, core.roi7.data()));
  core.fc6.resize(static_cast<size_t>(R * fc));
  core.fc7.resize(static_cast<size_t>(R * fc));
  core.cls.resize(static_cast<size_t>(R * C1));
  core.box.resize(static_cast<size_t>(R * 4 * C1));
  LayerForward(L6, p, R, 1, 1, core.roi7.data(), core.fc6.data(), prec);
  kernels::Relu(core.fc6.data(), core.fc6.data(), R * fc);
  LayerForward(L7, p, R, 1, 1, core.fc6.data(), core.fc7.data(), prec);
  kernels::Relu(core.fc7.data(), core.fc7.data(), R * fc);
  LayerForward(Lc, p, R, 1, 1, core.fc7.data(), core.cls.data(), prec);
  LayerForward(Lb, p, R, 1, 1, core.fc7.data(), core.box.data(), prec);
  return Status::Ok();
}

Status FunctionalMaskRcnn::ForwardMaskHead(Core& core, const detection::FeaturePyramid& pyr,
                                           std::span<const float* const> levels,
                                           std::span<const detection::Roi> mrois) const {
  const Net& net = *net_;
  const float* p = params_.data();
  const kernels::Precision prec = cfg_.precision;
  const int64_t MR = static_cast<int64_t>(mrois.size());
  const int Fc = cfg_.fpn_channels, M = cfg_.mask_channels, C1 = cfg_.classes + 1;
  const Layer& Ld = net.layers[static_cast<size_t>(net.deconv)];
  const Layer& Lo = net.layers[static_cast<size_t>(net.mask_out)];
  core.roi14.resize(static_cast<size_t>(MR * kMaskRoi * kMaskRoi * Fc));
  PODBENCH_RETURN_IF_ERROR(detection::MultilevelRoiAlign(pyr, levels, mrois, kMaskRoi, core.roi14.data()));
  const float* x = core.roi14.data();
  for (int i = 0; i < kMaskConvs; ++i) {
    core.mconv[i].resize(static_cast<size_t>(MR * kMaskRoi * kMaskRoi * M));
    LayerForward(net.layers[static_cast<size_t>(net.mask_conv[i])], p, MR, kMaskRoi, kMaskRoi, x,
                 core.mconv[i].data(), prec);
    kernels::Relu(core.mconv[i].data(), core.mconv[i].data(), MR * kMaskRoi * kMaskRoi * M);
    x = core.mconv[i].data();
  }
  core.dec.resize(static_cast<size_t>(MR * kMaskOut * kMaskOut * M));
  LayerForward(Ld, p, MR, kMaskRoi, kMaskRoi, x, core.dec.data(), prec);
  kernels::Relu(core.dec.data(), core.dec.data(), MR * kMaskOut * kMaskOut * M);
  core.mout.resize(static_cast<size_t>(MR * kMaskOut * kMaskOut * C1));
  LayerForward(Lo, p, MR, kMaskOut, kMaskOut, core.dec.data(), core.mout.data(), prec);
  return Status::Ok();
}

Status FunctionalMaskRcnn::ReplicaStep(int c, const MaskBatch& batch, uint64_t step, bool backward) {
  const Plan& plan = *train_plan_;
  Core& core = *core_[static_cast<size_t>(c)];
  const int64_t n = cfg_.global_batch / replicas(), first = (c / plan.k) * n;
  const int S = cfg_.image_size;
  core.loss = LossParts{};
  core.error = Status::Ok();
  ForwardFirstStage(plan, core, c, batch.images.data() + static_cast<size_t>(first) * S * S * 3, n);
  float* grads = backward ? dp_->gradient(c) : nullptr;
  if (backward) {
    std::fill(grads, grads + net_->num_params, 0.f);
    for (size_t t = 0; t < plan.shape.size(); ++t) core.grad[t].assign(core.act[t].size(), 0.f);
  }
  // Every core finishes the step whatever fails, as the others wait for it
  // at every collective.
  const Status second = SecondStage(core, c, batch, step, backward, grads);
  if (backward) BackwardFirstStage(plan, core, c, n, grads);
  PODBENCH_RETURN_IF_ERROR(second);
  return core.error;
}

Status FunctionalMaskRcnn::DrawSamples(Core& core, int64_t first, int64_t n, const MaskBatch& batch,
                                       uint64_t step) const {
  const Net& net = *net_;
  core.samples.assign(static_cast<size_t>(n), Samples{});
  for (int64_t img = 0; img < n; ++img) {
    const GroundTruth& t = batch.truth[static_cast<size_t>(first + img)];
    Samples& s = core.samples[static_cast<size_t>(img)];
    detection::Rng rng(Mix(Mix(cfg_.seed) ^ Mix(step * 0x100000001b3ULL + static_cast<uint64_t>(first + img))));
    PODBENCH_ASSIGN_OR_RETURN(s.rpn, detection::SampleRpnAnchors(net.all_anchors, t.boxes, cfg_.rpn_sampling, rng));
    PODBENCH_ASSIGN_OR_RETURN(auto proposals, Propose(*train_plan_, core, img, cfg_.proposals));
    std::vector<Box> boxes;
    for (const auto& pr : proposals) boxes.push_back(pr.box);
    PODBENCH_ASSIGN_OR_RETURN(s.rois, detection::SampleRois(boxes, t.boxes, t.classes, cfg_.roi_sampling, rng));
    const int64_t P = cfg_.gt_mask_size + 2 * detection::kMaskBorder;
    for (size_t r = 0; r < s.rois.rois.size(); ++r) {
      if (s.rois.classes[r] <= 0) continue;
      const int m = s.rois.matched[r];
      s.mask_rois.push_back(static_cast<int>(r));
      s.mask_targets.resize(s.mask_targets.size() + kMaskOut * kMaskOut);
      PODBENCH_RETURN_IF_ERROR(detection::MaskTarget(t.padded_masks.data() + static_cast<size_t>(m * P * P), P,
                                                     t.boxes[static_cast<size_t>(m)], s.rois.rois[r], kMaskOut,
                                                     s.mask_targets.data() + s.mask_targets.size() - kMaskOut * kMaskOut));
    }
  }
  return Status::Ok();
}

Status FunctionalMaskRcnn::SecondStage(Core& core, int c, const MaskBatch& batch, uint64_t step, bool backward,
                                       float* grads) {
  const Net& net = *net_;
  const Plan& plan = *train_plan_;
  const int parts = plan.k, pos = c % parts;
  const int64_t n = cfg_.global_batch / replicas(), first = (c / parts) * n;
  const int A = net.per_location, C1 = cfg_.classes + 1;
  const int Fc = cfg_.fpn_channels, M = cfg_.mask_channels, fc = cfg_.fc_channels;
  const float inv_b = 1.f / static_cast<float>(cfg_.global_batch);
  const kernels::Precision prec = cfg_.precision;
  const float* p = params_.data();
  // Google's pinning (core_assignment_utils.py, modulo k): proposals, the
  // samples, the RPN losses and the mask targets on the replica's core 0,
  // the box head and its losses on core 2, the mask head and its loss on
  // core 1. The samples reach the other cores through the replica's shared
  // memory once every core has met (the emulation's stand-in for the
  // tensors XLA moves between pinned ops). Over MPI ranks a replica's cores
  // may live in two processes: the replica's first core in this process
  // draws them, from its own copy of the gathered levels and RPN outputs
  // (bitwise core 0's: the gathers add only zeros to each value) with the
  // same (seed, step, image) generators, so every process holds core 0's
  // samples.
  auto runs = [&](SecondStagePart part) { return pos == static_cast<int>(PinnedCore(part) % parts); };
  const bool rpn_core = runs(SecondStagePart::kSamples), box_core = runs(SecondStagePart::kBoxHead),
             mask_core = runs(SecondStagePart::kMaskHead);
  const int lead_core = std::max(c - pos, dp_->local_cores().begin);
  Core& lead = *core_[static_cast<size_t>(lead_core)];
  if (c == lead_core) lead.sample_status = frozen_ ? Status::Ok() : DrawSamples(core, first, n, batch, step);
  if (parts > 1) dp_->Sync();
  PODBENCH_RETURN_IF_ERROR(lead.sample_status);
  const std::vector<Samples>& samples = lead.samples;

  // RPN losses.
  for (int64_t img = 0; img < n && rpn_core; ++img) {
    const Samples& s = samples[static_cast<size_t>(img)];
    const int sampled = s.rpn.positives + s.rpn.negatives;
    if (sampled == 0) continue;
    const double norm = 1.0 / sampled;
    for (size_t a = 0; a < net.all_anchors.size(); ++a) {
      const int label = s.rpn.labels[a];
      if (label < 0) continue;
      const int l = net.anchor_level[a];
      const Shape& rs = plan.shape[static_cast<size_t>(plan.rpn_out[l])];
      const size_t at = static_cast<size_t>(img * rs.elems() + int64_t{net.anchor_pos[a]} * 5 * A);
      const float* o = core.act[static_cast<size_t>(plan.rpn_out[l])].data() + at;
      float* d = backward ? core.grad[static_cast<size_t>(plan.rpn_out[l])].data() + at : nullptr;
      const int ai = net.anchor_a[a];
      const double xl = o[ai];
      core.loss.rpn_class += norm * (std::max(xl, 0.0) - xl * label + std::log1p(std::exp(-std::abs(xl))));
      if (d) d[ai] += static_cast<float>(norm * (1.0 / (1.0 + std::exp(-xl)) - label) * inv_b);
      if (label == 1) {
        for (int k = 0; k < 4; ++k) {
          double g = 0;
          core.loss.rpn_box += norm * Huber(o[A + 4 * ai + k] - s.rpn.boxes[a][static_cast<size_t>(k)], 1.0 / 9, &g);
          if (d) d[A + 4 * ai + k] += static_cast<float>(norm * g * inv_b);
        }
      }
    }
  }

  // The heads over the whole (gathered) levels: every ROI of the replica.
  const detection::FeaturePyramid pyr = Pyramid(n);
  std::vector<const float*> levels;
  std::vector<float*> dlevels;
  for (int l = 0; l < kLevels; ++l) {
    levels.push_back(core.act[static_cast<size_t>(plan.p_level[l])].data());
    if (backward) dlevels.push_back(core.grad[static_cast<size_t>(plan.p_level[l])].data());
  }
  std::vector<detection::Roi> rois, mrois;
  std::vector<int32_t> labels, mclasses;
  std::vector<int64_t> roi_begin{0}, mask_begin{0};
  std::vector<float> mtargets;
  for (int64_t img = 0; img < n; ++img) {
    const Samples& s = samples[static_cast<size_t>(img)];
    for (size_t r = 0; r < s.rois.rois.size(); ++r) {
      rois.push_back({static_cast<int>(img), s.rois.rois[r]});
      labels.push_back(s.rois.classes[r]);
    }
    for (int r : s.mask_rois) {
      mrois.push_back({static_cast<int>(img), s.rois.rois[static_cast<size_t>(r)]});
      mclasses.push_back(s.rois.classes[static_cast<size_t>(r)]);
    }
    mtargets.insert(mtargets.end(), s.mask_targets.begin(), s.mask_targets.end());
    roi_begin.push_back(static_cast<int64_t>(rois.size()));
    mask_begin.push_back(static_cast<int64_t>(mrois.size()));
  }
  const int64_t R = static_cast<int64_t>(rois.size()), MR = static_cast<int64_t>(mrois.size());
  const Layer& L6 = net.layers[static_cast<size_t>(net.fc6)];
  const Layer& L7 = net.layers[static_cast<size_t>(net.fc7)];
  const Layer& Lc = net.layers[static_cast<size_t>(net.cls)];
  const Layer& Lb = net.layers[static_cast<size_t>(net.box)];
  if (R > 0 && box_core) {
    PODBENCH_RETURN_IF_ERROR(ForwardBoxHead(core, pyr, levels, rois));
    core.dcls.assign(core.cls.size(), 0.f);
    core.dbox.assign(core.box.size(), 0.f);
    for (int64_t img = 0; img < n; ++img) {
      const int64_t b0 = roi_begin[static_cast<size_t>(img)], rn = roi_begin[static_cast<size_t>(img) + 1] - b0;
      if (rn == 0) continue;
      core.loss.frcnn_class += kernels::SoftmaxCrossEntropy(core.cls.data() + b0 * C1, labels.data() + b0, rn, C1, 0.f,
                                                            core.dcls.data() + b0 * C1);
      const Samples& s = samples[static_cast<size_t>(img)];
      for (int64_t r = 0; r < rn; ++r) {
        const int k = s.rois.classes[static_cast<size_t>(r)];
        if (k <= 0) continue;
        for (int d = 0; d < 4; ++d) {
          const size_t at = static_cast<size_t>((b0 + r) * 4 * C1 + 4 * k + d);
          double g = 0;
          core.loss.frcnn_box += Huber(core.box[at] - s.rois.box_targets[static_cast<size_t>(r)][static_cast<size_t>(d)], 1.0, &g) /
                                 static_cast<double>(rn);
          core.dbox[at] = static_cast<float>(g / static_cast<double>(rn) * inv_b);
        }
      }
    }
    kernels::Scale(inv_b, core.dcls.data(), core.dcls.data(), R * C1);
  }
  const Layer& Ld = net.layers[static_cast<size_t>(net.deconv)];
  const Layer& Lo = net.layers[static_cast<size_t>(net.mask_out)];
  if (MR > 0 && mask_core) {
    PODBENCH_RETURN_IF_ERROR(ForwardMaskHead(core, pyr, levels, mrois));
    core.dmout.assign(core.mout.size(), 0.f);
    for (int64_t img = 0; img < n; ++img) {
      const int64_t b0 = mask_begin[static_cast<size_t>(img)], mn = mask_begin[static_cast<size_t>(img) + 1] - b0;
      if (mn == 0) continue;
      detection::MaskLossShape ms{mn, kMaskOut, C1};
      const size_t off = static_cast<size_t>(b0 * kMaskOut * kMaskOut);
      PODBENCH_ASSIGN_OR_RETURN(
          const double ml,
          detection::MaskLoss(ms, core.mout.data() + off * C1, mtargets.data() + off,
                              std::span<const int>(mclasses.data() + b0, static_cast<size_t>(mn)),
                              core.dmout.data() + off * C1));
      core.loss.mask += ml;
    }
    kernels::Scale(inv_b, core.dmout.data(), core.dmout.data(), static_cast<int64_t>(core.dmout.size()));
  }
  if (!backward) return Status::Ok();

  // Backward of the heads, down to the gathered levels' gradients.
  if (MR > 0 && mask_core) {
    core.ddec.assign(core.dec.size(), 0.f);
    LayerBackward(Lo, p, MR, kMaskOut, kMaskOut, core.dec.data(), core.dmout.data(), core.ddec.data(), grads, core.tmp,
                  prec);
    std::vector<float> dy(core.ddec.size());
    std::fill(dy.begin(), dy.end(), 0.f);
    ReluBackwardAdd(core.dec.data(), core.ddec.data(), dy.data(), static_cast<int64_t>(dy.size()));
    const int64_t mel = MR * kMaskRoi * kMaskRoi * M;
    std::vector<float> dx(static_cast<size_t>(mel), 0.f);
    LayerBackward(Ld, p, MR, kMaskRoi, kMaskRoi, core.mconv[kMaskConvs - 1].data(), dy.data(), dx.data(), grads,
                  core.tmp, prec);
    for (int i = kMaskConvs - 1; i >= 0; --i) {
      std::vector<float> dpre(static_cast<size_t>(mel), 0.f);
      ReluBackwardAdd(core.mconv[i].data(), dx.data(), dpre.data(), mel);
      const float* xin = i == 0 ? core.roi14.data() : core.mconv[i - 1].data();
      const int cin = i == 0 ? Fc : M;
      dx.assign(static_cast<size_t>(MR * kMaskRoi * kMaskRoi * cin), 0.f);
      LayerBackward(net.layers[static_cast<size_t>(net.mask_conv[i])], p, MR, kMaskRoi, kMaskRoi, xin, dpre.data(),
                    dx.data(), grads, core.tmp, prec);
    }
    PODBENCH_RETURN_IF_ERROR(detection::MultilevelRoiAlignBackward(pyr, dlevels, mrois, kMaskRoi, dx.data()));
  }
  if (R > 0 && box_core) {
    std::vector<float> d7(static_cast<size_t>(R * fc), 0.f), d6(static_cast<size_t>(R * fc), 0.f),
        dpre(static_cast<size_t>(R * fc), 0.f), droi(core.roi7.size(), 0.f);
    LayerBackward(Lc, p, R, 1, 1, core.fc7.data(), core.dcls.data(), d7.data(), grads, core.tmp, prec);
    LayerBackward(Lb, p, R, 1, 1, core.fc7.data(), core.dbox.data(), d7.data(), grads, core.tmp, prec);
    ReluBackwardAdd(core.fc7.data(), d7.data(), dpre.data(), R * fc);
    LayerBackward(L7, p, R, 1, 1, core.fc6.data(), dpre.data(), d6.data(), grads, core.tmp, prec);
    std::fill(dpre.begin(), dpre.end(), 0.f);
    ReluBackwardAdd(core.fc6.data(), d6.data(), dpre.data(), R * fc);
    LayerBackward(L6, p, R, 1, 1, core.roi7.data(), dpre.data(), droi.data(), grads, core.tmp, prec);
    PODBENCH_RETURN_IF_ERROR(detection::MultilevelRoiAlignBackward(pyr, dlevels, rois, kBoxRoi, droi.data()));
  }
  return Status::Ok();
}

Result<std::vector<std::vector<Instance>>> FunctionalMaskRcnn::Predict(const float* images, int64_t n,
                                                                       const InferenceConfig& ic) {
  if (n < 0) return Status::InvalidArgument("maskrcnn functional: Predict needs n >= 0");
  const Plan& plan = *eval_plan_;
  Core& core = *eval_core_;
  const int S = cfg_.image_size, C1 = cfg_.classes + 1;
  const detection::FeaturePyramid pyr = Pyramid(1);
  const detection::BoxCoder coder{cfg_.roi_sampling.center_variance, cfg_.roi_sampling.size_variance};
  const float clip = static_cast<float>(std::log(1000.0 / 16));
  const Box frame{0, 0, double(S), double(S)};
  std::vector<std::vector<Instance>> out(static_cast<size_t>(n));
  for (int64_t img = 0; img < n; ++img) {
    ForwardFirstStage(plan, core, -1, images + static_cast<size_t>(img) * S * S * 3, 1);
    std::vector<const float*> levels;
    for (int l = 0; l < kLevels; ++l) levels.push_back(core.act[static_cast<size_t>(plan.p_level[l])].data());
    PODBENCH_ASSIGN_OR_RETURN(auto proposals, Propose(plan, core, 0, ic.proposals));
    std::vector<detection::Roi> rois;
    for (const auto& pr : proposals) rois.push_back({0, pr.box});
    if (rois.empty()) continue;
    PODBENCH_RETURN_IF_ERROR(ForwardBoxHead(core, pyr, levels, rois));
    const int64_t R = static_cast<int64_t>(rois.size());
    std::vector<float> prob(core.cls.begin(), core.cls.begin() + R * C1);
    kernels::MaskedSoftmax(prob.data(), nullptr, R, C1);
    std::vector<Instance> found;
    for (int k = 1; k < C1; ++k) {
      std::vector<Box> boxes(static_cast<size_t>(R));
      std::vector<float> scores(static_cast<size_t>(R));
      std::vector<int> order;
      for (int64_t r = 0; r < R; ++r) {
        scores[static_cast<size_t>(r)] = prob[static_cast<size_t>(r * C1 + k)];
        if (scores[static_cast<size_t>(r)] < ic.min_score) continue;
        float t[4];
        for (int d = 0; d < 4; ++d) t[d] = core.box[static_cast<size_t>(r * 4 * C1 + 4 * k + d)];
        t[2] = std::min(t[2], clip);
        t[3] = std::min(t[3], clip);
        boxes[static_cast<size_t>(r)] = detection::Clip(coder.Decode(t, detection::CentreForm(rois[static_cast<size_t>(r)].box)), frame);
        if (!boxes[static_cast<size_t>(r)].Empty()) order.push_back(static_cast<int>(r));
      }
      for (int r : detection::Nms(boxes, scores, order, ic.nms_iou)) {
        found.push_back({boxes[static_cast<size_t>(r)], scores[static_cast<size_t>(r)], k, {}});
      }
    }
    std::stable_sort(found.begin(), found.end(), [](const Instance& a, const Instance& b) { return a.score > b.score; });
    if (static_cast<int>(found.size()) > ic.max_detections) found.resize(static_cast<size_t>(ic.max_detections));
    if (!found.empty()) {
      std::vector<detection::Roi> mrois;
      for (const Instance& d : found) mrois.push_back({0, d.box});
      PODBENCH_RETURN_IF_ERROR(ForwardMaskHead(core, pyr, levels, mrois));
      std::vector<float> map(kMaskOut * kMaskOut);
      for (size_t d = 0; d < found.size(); ++d) {
        for (int q = 0; q < kMaskOut * kMaskOut; ++q) {
          const float v = core.mout[(d * kMaskOut * kMaskOut + static_cast<size_t>(q)) * static_cast<size_t>(C1) +
                                    static_cast<size_t>(found[d].label)];
          map[static_cast<size_t>(q)] = 1.f / (1.f + std::exp(-v));
        }
        PasteMask(map.data(), found[d].box, S, found[d].mask);
      }
    }
    out[static_cast<size_t>(img)] = std::move(found);
  }
  return out;
}

Result<MaskRcnnAp> EvaluateShapes(FunctionalMaskRcnn& model, const detection::ShapesSpec& spec, uint64_t first_index,
                                  int64_t count, const InferenceConfig& config) {
  const FunctionalConfig& cfg = model.config();
  PODBENCH_RETURN_IF_ERROR(spec.Validate());
  if (spec.height != cfg.image_size || spec.width != cfg.image_size || spec.classes > cfg.classes || count < 0) {
    return Status::InvalidArgument("maskrcnn functional: EvaluateShapes needs the model's image size, at most its "
                                   "classes and count >= 0");
  }
  const int S = cfg.image_size;
  std::vector<float> images(static_cast<size_t>(count) * S * S * 3);
  std::vector<detection::ShapesImage> truth;
  for (int64_t i = 0; i < count; ++i) {
    truth.push_back(detection::MakeShapesImage(spec, first_index + static_cast<uint64_t>(i), true));
    ToInput(truth.back().image, images.data() + static_cast<size_t>(i) * S * S * 3);
  }
  PODBENCH_ASSIGN_OR_RETURN(auto predictions, model.Predict(images.data(), count, config));
  return ScoreShapes(predictions, truth, S, cfg.classes);
}

Result<MaskRcnnAp> ScoreShapes(std::span<const std::vector<Instance>> predictions,
                               std::span<const detection::ShapesImage> truth, int S, int classes) {
  if (predictions.size() != truth.size()) {
    return Status::InvalidArgument("maskrcnn functional: " + std::to_string(predictions.size()) +
                                   " images' predictions for " + std::to_string(truth.size()) + " images");
  }
  const int64_t count = static_cast<int64_t>(truth.size());
  detection::CocoInput in;
  std::vector<detection::CocoBox> gt_boxes, dt_boxes;
  std::vector<detection::Rle> gt_masks, dt_masks;
  for (int k = 1; k <= classes; ++k) in.category_ids.push_back(k);
  for (int64_t i = 0; i < count; ++i) {
    in.image_ids.push_back(i + 1);
    for (const detection::ShapeObject& o : truth[static_cast<size_t>(i)].objects) {
      in.truth.push_back({static_cast<int64_t>(in.truth.size()) + 1, i + 1, o.label, o.area, false});
      gt_boxes.push_back({o.box.x0, o.box.y0, o.box.width(), o.box.height()});
      gt_masks.push_back(detection::EncodeMask(S, S, o.mask));
    }
    for (const Instance& d : predictions[static_cast<size_t>(i)]) {
      in.detections.push_back({i + 1, d.label, d.score});
      dt_boxes.push_back({d.box.x0, d.box.y0, d.box.width(), d.box.height()});
      dt_masks.push_back(detection::EncodeMask(S, S, d.mask));
    }
  }
  MaskRcnnAp ap;
  PODBENCH_ASSIGN_OR_RETURN(auto box, detection::EvaluateCoco(in, detection::CocoBoxGeometry(dt_boxes, gt_boxes)));
  PODBENCH_ASSIGN_OR_RETURN(auto segm,
                            detection::EvaluateCoco(in, detection::CocoMaskGeometry(dt_masks, gt_masks)));
  ap.box = box.ap();
  ap.mask = segm.ap();
  return ap;
}

void FunctionalMaskRcnn::Update(const SgdSchedule& schedule, int64_t step) {
  const float lr = static_cast<float>(LearningRate(schedule, step));
  const float* g = gradient();
  std::vector<float> doubled;
  for (const ParamBlock& b : blocks_) {
    float* w = params_.data() + b.offset;
    float* v = momentum_.data() + b.offset;
    if (b.bias) {  // Google doubles the bias gradients, without weight decay
      doubled.resize(static_cast<size_t>(b.size));
      kernels::Scale(2.f, g + b.offset, doubled.data(), b.size);
      kernels::SgdMomentumUpdate(w, doubled.data(), v, b.size, lr, schedule.momentum, 0.f);
    } else {
      kernels::SgdMomentumUpdate(w, g + b.offset, v, b.size, lr, schedule.momentum, schedule.weight_decay);
    }
  }
}

}  // namespace podbench::maskrcnn
