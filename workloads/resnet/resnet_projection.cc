#include "workloads/resnet/resnet_projection.h"

#include <algorithm>

#include "kernels/cost/tpu_cost.h"
#include "topology/collectives.h"
#include "topology/logical.h"

namespace podbench::resnet {

namespace {

using kernels::kBf16Bytes;
using kernels::kF32Bytes;
using kernels::OpCost;

struct LayerCosts {
  OpCost forward, backward;
};

LayerCosts PriceUnfused(const Layer& l, int64_t b, const kernels::CoreSpec& core, bool first_layer) {
  LayerCosts c;
  const int64_t in = b * l.in_elems(), out = b * l.out_elems();
  switch (l.kind) {
    case LayerKind::kConv: {
      auto s = ConvShapeOf(l, b);
      c.forward = kernels::Conv2dForwardCost(core, s);
      // The input image needs no gradient.
      if (!first_layer) c.backward = kernels::Conv2dBackwardDataCost(core, s);
      c.backward += kernels::Conv2dBackwardFilterCost(core, s);
      break;
    }
    case LayerKind::kBatchNorm:
      c.forward = kernels::BatchNormForwardCost(core, b * l.out_h * l.out_w, l.out_c);
      c.backward = kernels::BatchNormBackwardCost(core, b * l.out_h * l.out_w, l.out_c);
      break;
    case LayerKind::kRelu:
      c.forward = kernels::ElementwiseCost(core, out, 1, 2 * kBf16Bytes);
      c.backward = kernels::ElementwiseCost(core, out, 1, 3 * kBf16Bytes);
      break;
    case LayerKind::kAdd:
      c.forward = kernels::ElementwiseCost(core, out, 1, 3 * kBf16Bytes);
      c.backward = kernels::ElementwiseCost(core, out, 0, 0);  // the gradient fans out unchanged
      break;
    case LayerKind::kMaxPool:
      c.forward = kernels::ElementwiseCost(core, out, l.kernel * l.kernel, kBf16Bytes * (1 + double(in) / double(out)));
      c.backward = kernels::ElementwiseCost(core, in, 2, 2 * kBf16Bytes);
      break;
    case LayerKind::kAvgPool:
      c.forward = kernels::ElementwiseCost(core, in, 1, kBf16Bytes);
      c.backward = kernels::ElementwiseCost(core, in, 1, kBf16Bytes);
      break;
    case LayerKind::kDense:
      c.forward = kernels::MatMulCost(core, b, l.out_c, l.in_c);
      c.backward = kernels::MatMulCost(core, b, l.in_c, l.out_c);     // d input
      c.backward += kernels::MatMulCost(core, l.in_c, l.out_c, b);   // d weights
      break;
    case LayerKind::kSoftmaxXent:
      c.forward = kernels::SoftmaxXentCost(core, b, l.in_c);
      break;
  }
  return c;
}

bool Fusable(LayerKind k) {
  return k == LayerKind::kBatchNorm || k == LayerKind::kRelu || k == LayerKind::kAdd;
}

// A fused op keeps its vector-unit work only.
OpCost Fused(const OpCost& c) {
  OpCost f;
  f.flops = c.flops;
  f.vector_s = c.vector_s;
  return f;
}

// Forward and backward cost of one layer for `b` images on one core.
LayerCosts PriceLayer(const Layer& l, int64_t b, const kernels::CoreSpec& core, bool first_layer,
                      bool fuse) {
  LayerCosts c = PriceUnfused(l, b, core, first_layer);
  if (fuse && Fusable(l.kind)) {
    c.forward = Fused(c.forward);
    c.backward = Fused(c.backward);
  }
  return c;
}

}  // namespace

kernels::Conv2dShape ConvShapeOf(const Layer& l, int64_t batch) {
  kernels::Conv2dShape s;
  s.n = batch;
  s.h = l.in_h;
  s.w = l.in_w;
  s.c = l.in_c;
  s.oc = l.out_c;
  s.kh = s.kw = l.kernel;
  s.stride = l.stride;
  s.pad = l.pad;
  return s;
}

std::vector<LayerTime> ProjectLayers(const std::vector<Layer>& layers, int64_t per_core_batch,
                                     const kernels::CoreSpec& core, bool fuse_elementwise) {
  std::vector<LayerTime> out;
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerCosts c = PriceLayer(layers[i], per_core_batch, core, i == 0, fuse_elementwise);
    LayerTime t;
    t.name = layers[i].name;
    t.kind = LayerKindName(layers[i].kind);
    t.forward_s = c.forward.total_s();
    t.backward_s = c.backward.total_s();
    t.mxu_utilisation = c.forward.mxu_utilisation();
    t.bound = c.forward.bound();
    out.push_back(std::move(t));
  }
  return out;
}

Result<StepCost> ProjectTrainStep(const std::vector<Layer>& layers, int64_t per_core_batch,
                                  const topology::Slice& slice, const ProjectionOptions& opt) {
  if (per_core_batch < 1) return Status::InvalidArgument("resnet: per-core batch must be >= 1");
  const auto& sys = slice.system();
  const kernels::CoreSpec& core = sys.core;
  StepCost step;
  int64_t params = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    LayerCosts c = PriceLayer(layers[i], per_core_batch, core, i == 0, opt.fuse_elementwise);
    step.compute_s += c.forward.total_s() + c.backward.total_s();
    params += layers[i].params();
  }

  const int replicas = slice.num_cores();
  const topology::LogicalTopology all = topology::LogicalTopology::WholeSlice(slice);
  const double grad_bytes = static_cast<double>(params) * opt.grad_bytes_per_param;
  if (replicas > 1) {
    if (opt.weight_update_sharding) {
      PODBENCH_ASSIGN_OR_RETURN(topology::ShardedAllReduce pair, topology::ShardedPairOf(opt.allreduce));
      PODBENCH_ASSIGN_OR_RETURN(double rs, topology::CollectiveTime(pair.reduce_scatter, grad_bytes, all));
      PODBENCH_ASSIGN_OR_RETURN(double ag, topology::CollectiveTime(pair.all_gather, grad_bytes, all));
      // Sharded LARS needs whole-layer weight and gradient norms: one
      // all-reduce of two partial sums of squares per layer with weights.
      double norms = 0;
      if (opt.optimizer == kernels::Optimizer::kLars) {
        int64_t weighted = 0;
        for (const Layer& l : layers) weighted += l.params() > 0 ? 1 : 0;
        PODBENCH_ASSIGN_OR_RETURN(norms, topology::CollectiveTime(opt.allreduce, 2.0 * weighted * kF32Bytes, all));
      }
      step.collectives_s = rs + ag + norms;
    } else {
      PODBENCH_ASSIGN_OR_RETURN(step.collectives_s,
                                topology::CollectiveTime(opt.allreduce, grad_bytes, all));
    }
  }
  const int64_t updated = opt.weight_update_sharding && replicas > 1
                              ? (params + replicas - 1) / replicas
                              : params;
  step.optimizer_s = kernels::OptimizerCost(core, updated, opt.optimizer).total_s();

  if (opt.bn_group > 1) {
    PODBENCH_ASSIGN_OR_RETURN(auto groups, topology::LogicalTopology::ReplicaGroups(
                                               slice, 1, static_cast<int>(opt.bn_group)));
    // Per BN layer: forward mean and variance (two C-vector all-reduces),
    // backward one all-reduce of the two gradient sums (2C values). Latency
    // dominates: price each layer's messages separately.
    double sync = 0;
    for (const Layer& l : layers) {
      if (l.kind != LayerKind::kBatchNorm) continue;
      double c_bytes = static_cast<double>(l.out_c) * kF32Bytes;
      PODBENCH_ASSIGN_OR_RETURN(double one, topology::CollectiveTime("ring", c_bytes, groups));
      PODBENCH_ASSIGN_OR_RETURN(double two, topology::CollectiveTime("ring", 2 * c_bytes, groups));
      sync += 2 * one + two;
    }
    step.bn_sync_s = sync;
  }

  // Host input: each host feeds its chips' cores; what the device step does
  // not hide shows as input time.
  const double cores_per_host = static_cast<double>(sys.host.chips_per_host) * sys.chip.cores;
  const double host_s = static_cast<double>(per_core_batch) * cores_per_host / sys.host.input_images_per_s;
  step.input_s = std::max(0.0, host_s - step.device_s());
  return step;
}

int64_t ImagesPerHost(int64_t train_images, const topology::Slice& slice) {
  const int64_t hosts = slice.num_hosts();
  return (train_images + hosts - 1) / hosts;
}

double ProjectFirstEpochExtra(const StepCost& step, int64_t steps, int64_t train_images,
                              bool cache_decoded_image, const topology::Slice& slice) {
  const auto& host = slice.system().host;
  double extra = host.startup_s;
  if (cache_decoded_image) {
    const double fill_s = static_cast<double>(ImagesPerHost(train_images, slice)) / host.cache_fill_images_per_s;
    extra += std::max(0.0, fill_s - static_cast<double>(steps) * step.total_s());
  }
  return extra;
}

Result<double> ProjectEval(const std::vector<Layer>& layers, int64_t eval_batch_per_core,
                           int64_t eval_steps, const topology::Slice& slice) {
  if (eval_batch_per_core < 1 || eval_steps < 1) {
    return Status::InvalidArgument("resnet: eval batch and steps must be >= 1");
  }
  const auto& sys = slice.system();
  double forward = 0;
  for (size_t i = 0; i < layers.size(); ++i) {
    if (layers[i].kind == LayerKind::kSoftmaxXent) continue;
    forward += PriceLayer(layers[i], eval_batch_per_core, sys.core, i == 0, true).forward.total_s();
  }
  // Each eval step outfeeds fp32 logits [batch, classes] from every core to
  // its host over PCIe.
  const Layer& fc = layers[layers.size() - 2];
  const double logits_bytes = static_cast<double>(eval_batch_per_core) * fc.out_c * kF32Bytes;
  const double outfeed = logits_bytes / sys.host.pcie_bandwidth_bytes_per_s_per_chip;
  return static_cast<double>(eval_steps) * (forward + outfeed);
}

}  // namespace podbench::resnet
