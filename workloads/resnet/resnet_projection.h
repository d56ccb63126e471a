// Projected mode for ResNet: what a training step, an evaluation and a whole
// 4-epoch block cost on a TPU-v3 slice, with no numbers computed.
//
// Every layer of the network (resnet_model.h) is priced per core by the
// kernels' TPU-v3 cost functions at the per-core batch (forward, backward
// data, backward filter); the collectives by the topology's analytic model;
// the host input pipeline by its per-host image rate. All constants come
// from the system description (topology/systems/tpu-v3.yaml); nothing here is
// specific to a slice or fitted to a benchmark.
//
// Step structure (one XLA program per step, as Google's v0.6 code runs):
//   compute     forward + backward of every layer (bf16 on the MXU)
//   bn_sync     distributed batch norm: per BN layer, all-reduces of the
//               C-vector statistics within groups of `bn_group` replicas
//               (forward: mean and variance; backward: the two gradient sums)
//   collectives gradient summation: all-reduce of the fp32 gradients over
//               all replicas, or with weight-update sharding the matching
//               reduce-scatter before and all-gather after the update
//               (topology::ShardedPairOf), plus the all-reduce of the
//               per-layer partial norms sharded LARS needs
//   optimizer   LARS or momentum SGD on every parameter (or on 1/replicas of
//               them, sharded)
//   input       the part of the host's per-step work (decode, augment) that
//               the device step does not hide
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "kernels/cost/tpu_cost.h"
#include "topology/slice.h"
#include "workloads/resnet/resnet_model.h"

namespace podbench::resnet {

// The kernels' convolution shape of conv layer `l` for `batch` images: the
// one mapping from the layer list to kernels/, for pricing and for running.
// REQUIRES: l.kind == LayerKind::kConv.
kernels::Conv2dShape ConvShapeOf(const Layer& l, int64_t batch);

struct ProjectionOptions {
  std::string allreduce = "torus2d";  // a registered topology algorithm name
  // XLA fuses a convolution's elementwise consumers (batch-norm statistics
  // and normalisation, ReLU, the residual add) into the convolution's input
  // and output streams: they cost vector-unit time but no HBM round trip and
  // no op of their own. false prices every layer as a separate op.
  bool fuse_elementwise = true;
  int64_t bn_group = 1;               // replicas per batch-norm group (1 = local BN)
  // Reduce-scatter and all-gather around the update instead of `allreduce`:
  // the pair topology::ShardedPairOf(allreduce) names.
  bool weight_update_sharding = false;
  double grad_bytes_per_param = 4;    // fp32 gradients (Google's v0.6 ResNet)
  // The update: LARS (Google's v0.6 ResNet; sharded, it adds the norms'
  // all-reduce) or momentum SGD.
  kernels::Optimizer optimizer = kernels::Optimizer::kLars;
};

struct StepCost {
  double compute_s = 0, bn_sync_s = 0, collectives_s = 0, optimizer_s = 0, input_s = 0;
  double device_s() const { return compute_s + bn_sync_s + collectives_s + optimizer_s; }
  double total_s() const { return device_s() + input_s; }
};

// One training step at `per_core_batch` images per core on `slice`.
// REQUIRES: layers from BuildResNet; per_core_batch >= 1.
// InvalidArgument when bn_group does not divide the replicas, NotFound for an
// unknown algorithm.
Result<StepCost> ProjectTrainStep(const std::vector<Layer>& layers, int64_t per_core_batch,
                                  const topology::Slice& slice, const ProjectionOptions& options);

// Images of an epoch of `train_images` that each of the slice's hosts reads:
// hosts read disjoint shards, ceil(train_images / hosts) for the largest.
int64_t ImagesPerHost(int64_t train_images, const topology::Slice& slice);

// Extra seconds of a run's first epoch over a steady one (`steps` steps of
// `step`): the host's start-up (host.startup_s: pipeline and shuffle-buffer
// fill, infeed start) and, when the host pipeline caches decoded images, the
// time its share of the epoch's images takes at host.cache_fill_images_per_s
// beyond what the device steps take anyway (each host reads ImagesPerHost).
// REQUIRES: steps >= 1, train_images >= 1.
double ProjectFirstEpochExtra(const StepCost& step, int64_t steps, int64_t train_images,
                              bool cache_decoded_image, const topology::Slice& slice);

// One evaluation pass: `eval_steps` forward passes at `eval_batch_per_core`,
// the logits outfed to the hosts. Seconds.
Result<double> ProjectEval(const std::vector<Layer>& layers, int64_t eval_batch_per_core,
                           int64_t eval_steps, const topology::Slice& slice);

// Per-layer forward+backward cost at `per_core_batch` (for tables): one row
// per layer with its seconds and what bounds it.
struct LayerTime {
  std::string name;
  std::string kind;
  double forward_s = 0, backward_s = 0;
  double mxu_utilisation = 1;
  std::string bound;  // "mxu", "vector" or "hbm" (forward)
};
std::vector<LayerTime> ProjectLayers(const std::vector<Layer>& layers, int64_t per_core_batch,
                                     const kernels::CoreSpec& core, bool fuse_elementwise = true);

}  // namespace podbench::resnet
