// The projection layer (the "system layer" in astra-sim's terms): prices a
// full-size model (graph.h) on a slice of the emulated TPU-v3 pod under a
// step configuration (layout.h), using only the kernels' per-op TPU-v3 costs
// (kernels/cost/tpu_cost.h, through op_cost.h) and the topology's collectives
// (topology/collectives.h). Every constant comes from the system file; a
// model adds no fitted constant of its own.
//
//   Result<StepProjection> step = ProjectTrainStep(graph, config, slice);
//   step->time[Category::kMxu], step->step_s(), step->ops[i].forward_s ...
//
// One training step (one XLA program per step, as Google's v0.6 runners ran):
//   forward   the train ops in order, each on its core's share: ops with
//             Placement::kSplit are split over the replica's
//             cores_per_replica cores along the image height (CoreShare);
//             a split convolution (and non-global pool) with a window taller
//             than 1 first exchanges halo rows with its neighbours
//             (topology's "halo_exchange" on the replica's cores; payload
//             rows x row elements x examples x dtype bytes per side). An op
//             with fewer rows than cores (SSD's 3x3 and 1x1 extra layers at
//             k = 4) runs padded, as XLA's partitioner pads an uneven
//             sharding: every core computes a 1-row shard and exchanges its
//             halo; the shards that hold only padding are charged to idle.
//             Ops pinned to core 0 run whole there, the other cores idle.
//             Consecutive ops pinned to different cores (Mask R-CNN's box
//             head on core 2 beside its mask head on core 1) run side by
//             side: such a run takes its busiest core's time, forward and
//             backward.
//   backward  the same ops in reverse, input gradients where
//             needs_input_grad, weight gradients where an op reads a
//             trainable parameter; a second halo exchange per split
//             convolution for its output gradient.
//   bn_sync   distributed batch norm, per trainable BN op when the group
//             (bn_group replicas x cores_per_replica cores) has more than one
//             core: forward two all-reduces of C fp32 values (mean,
//             variance; one of 2C when NormAttrs::concat_stats), backward
//             one of 2C (the two gradient sums), with
//             ProjectionOptions::bn_algorithm in groups of bn_group replicas.
//   gradients the trainable parameters' gradients (gradient_dtype bytes each;
//             sparse embedding gradients are summed densely: a TPU
//             cross-replica sum has no sparse form) summed over the replicas
//             by one all-reduce over every core of the slice: a replica's
//             cores hold partial weight gradients of their strips, so the
//             sum over all cores is the sum over replicas of each replica's
//             gradient, each example counted once. With weight-update
//             sharding: topology::ShardedPairOf(allreduce)'s reduce-scatter
//             of the gradients, then its all-gather of the updated fp32
//             weights; with LARS also one all-reduce of two fp32 partial
//             sums of squares per LARS-scaled tensor (trainable, not
//             norm_or_bias).
//   optimizer one update op over the trainable parameters (tpu_cost's
//             OptimizerCost), on 1/cores of them with weight-update
//             sharding. LazyAdam, SGD and momentum update only the rows an
//             embedding table's sparse gradient touches (at most the step's
//             tokens, all distinct) when every op using the table is an
//             embedding lookup; Adam and LARS update every row.
//   input     the host's per-step input work (host.h) the device does not
//             hide; with a few infeed hosts (HostWork::infeed_hosts), also
//             the cross-replica sum of the global batch's infeed bytes over
//             every core that hands each core its examples
//             (InfeedDistributionBytes), on the device, not overlapped.
// One evaluation step: the eval ops forward at eval_per_replica_batch (split
// and halo as above, no gradients, no BN sync) and the outfeed of the
// results to the hosts (charged to input).
//
// What overlaps what (Overlap; every switch is an ablation, defaults below):
//   within an op    MXU, vector unit and HBM overlap: the op takes the
//                   longest of the three plus its overhead (on);
//   input           the host prepares the next step while the device runs
//                   this one: only the excess shows (on);
//   gradients       after the backward pass, not overlapped with it (off:
//                   v0.6 summed every gradient at the end of the step);
//   halo            before each split convolution, not overlapped with its
//                   interior (off);
//   bn_sync         on the critical path of the layer's normalisation (off);
//   eval scoring    the host scores an evaluation while the device trains
//                   the next block (on: ResNet's, SSD's, Mask R-CNN's and
//                   the Transformer's and GNMT's runners, whose device
//                   trains on while the main thread scores BLEU; off:
//                   serial, training waits for the scoring);
//   eval input      the host prepares the evaluation examples while the
//                   device trains (on: Google's runners infeed them from a
//                   cached, repeated dataset); off prices them serially at
//                   the steady input rate.
// An overlapped category shows only its excess over what it overlaps with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/slice.h"
#include "workloads/projection/categories.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/layout.h"

namespace podbench::projection {

struct Overlap {
  bool units_within_op = true;
  bool input_with_device = true;
  bool gradients_with_backward = false;
  bool halo_with_compute = false;
  bool bn_sync_with_compute = false;
  bool eval_scoring_with_training = true;
  bool eval_input_with_training = true;
};

struct ProjectionOptions {
  // XLA fuses elementwise consumers into their producer (Op::fused); false
  // prices every op as an op of its own (an ablation).
  bool fuse_elementwise = true;
  // The all-reduce of distributed batch-norm statistics (a registered
  // topology algorithm; latency-bound messages within small groups).
  std::string bn_algorithm = "ring";
  // Every replica evaluates its share of the evaluation examples (Google's
  // v0.6 runners: distributed evaluation, Kumar et al. 2019). False: only
  // the replicas on one host's cores evaluate (host.chips_per_host chips), at
  // the same per-replica batch, while the others wait: the evaluation takes
  // slice-cores / host-cores times the steps (an ablation).
  bool distributed_eval = true;
  Overlap overlap;
};

// One op of a step as the tables show it.
struct OpRow {
  std::string name;
  OpKind kind = OpKind::kElementwise;
  std::string shape;            // per example, OpShape
  Placement placement = Placement::kSplit;
  int64_t pinned_core = 0;      // kPinnedCore0: the replica's core it runs on (Op::pinned_core modulo its cores)
  bool fused = false;
  int64_t params = 0;           // elements of the parameters it reads (a shared one at its first op)
  double flops = 0;             // useful forward FLOPs of the step's examples on the replica (2 x MACs)
  double forward_s = 0;         // wall time on the replica: a core's share, or the whole op on core 0 (0: a recomputed op)
  double backward_s = 0;        // 0 in an evaluation step; a recomputed op's forward pass (Op::recomputed)
  double halo_s = 0;            // its halo exchanges, forward + backward (before overlap)
  std::string bound;            // "mxu", "vector" or "hbm" of the forward pass
  double mxu_utilisation = 1;   // useful / padded MXU FLOPs of the forward pass
};

struct StepProjection {
  CategoryTimes time;           // partitions the step's time
  std::vector<OpRow> ops;       // in graph order
  int64_t global_examples = 0;  // examples of the step over the slice
  double host_input_s = 0;      // the host's input work of a step, before overlap
  double step_s() const { return time.total_s(); }
  double examples_per_s() const { return step_s() > 0 ? double(global_examples) / step_s() : 0; }
};

// InvalidArgument (naming the field or op) unless the configuration can be
// priced: the layout valid for the slice (ParallelLayout::Validate); batches
// >= 1; a registered all-reduce, with a sharded pair when weight-update
// sharding is on; batch-norm groups that are chip rectangles; every op's
// parameters known to the graph. A split op with fewer rows than the
// replica's cores is priced padded (op_cost.h CoreShare), not refused.
Status ValidateProjection(const ModelGraph& graph, const StepConfig& config, const topology::Slice& slice,
                          const ProjectionOptions& options = {});

// One training step. Errors: ValidateProjection's; NotFound for an unknown
// collective algorithm.
Result<StepProjection> ProjectTrainStep(const ModelGraph& graph, const StepConfig& config,
                                        const topology::Slice& slice, const ProjectionOptions& options = {});

// One evaluation step (the eval list at eval_per_replica_batch).
Result<StepProjection> ProjectEvalStep(const ModelGraph& graph, const StepConfig& config,
                                       const topology::Slice& slice, const ProjectionOptions& options = {});

// One evaluation of `eval_examples`: whole steps (the last padded, as the
// v0.6 runners pad) over every replica, or one host's replicas without
// distributed_eval, then the host's scoring.
struct EvalProjection {
  StepProjection step;
  int64_t steps = 0;
  double device_s = 0;     // steps x the step, plus the eval input when it is not overlapped
  double scoring_s = 0;    // host scoring (HostScoringSeconds)
  bool scoring_overlapped = true;
  int scoring_pool = 1;    // HostWork::scoring_pool
  // Seconds the evaluation holds up the run when the next block's training
  // takes `next_block_s`: the device's part, and the scoring when it is
  // serial or, overlapped, the part of it that outlasts the next
  // scoring_pool blocks.
  double exposed_s(double next_block_s) const;
};
Result<EvalProjection> ProjectEvaluation(const ModelGraph& graph, const StepConfig& config,
                                         const topology::Slice& slice, int64_t eval_examples,
                                         const ProjectionOptions& options = {});

}  // namespace podbench::projection
