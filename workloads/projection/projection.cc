#include "workloads/projection/projection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

#include "kernels/cost/tpu_cost.h"
#include "topology/algorithm.h"
#include "topology/collectives.h"
#include "topology/logical.h"
#include "workloads/projection/host.h"
#include "workloads/projection/op_cost.h"

namespace podbench::projection {

namespace {

using kernels::OpCost;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Seconds one op takes on its core.
double OpSeconds(const OpCost& c, const Overlap& o) {
  return o.units_within_op ? c.total_s() : c.mxu_s + c.vector_s + c.hbm_s + c.overhead_s;
}

// Charges an op's `c` to `t`: to its bound unit when the units overlap, else
// each unit's own time (the overhead to the bound unit). `work` is the share
// of the replica's cores' time that is useful, the rest is idling: 1/k for
// an op pinned to one of k cores, SplitUsefulFraction for a split op whose
// shards are padded, 1 otherwise.
void Charge(CategoryTimes& t, const OpCost& c, const Overlap& o, double work) {
  const Category bound = BoundCategory(c);
  if (o.units_within_op) {
    t[bound] += work * c.total_s();
  } else {
    t[Category::kMxu] += work * c.mxu_s;
    t[Category::kVector] += work * c.vector_s;
    t[Category::kHbm] += work * c.hbm_s;
    t[bound] += work * c.overhead_s;
  }
  t[Category::kIdle] += (1 - work) * OpSeconds(c, o);
}

// The graph's parameters by name (the first of a repeated name).
using ParamIndex = std::unordered_map<std::string_view, const Param*>;
ParamIndex IndexParams(const ModelGraph& g) {
  ParamIndex index;
  for (const Param& p : g.params) index.emplace(p.name, &p);
  return index;
}

bool Trains(const Op& op, const ParamIndex& params) {
  for (const std::string& p : op.params) {
    auto it = params.find(p);
    if (it != params.end() && it->second->trainable) return true;
  }
  return false;
}

kernels::Optimizer KernelOptimizer(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::kSgd: return kernels::Optimizer::kSgd;
    case OptimizerKind::kMomentum: return kernels::Optimizer::kSgdMomentum;
    case OptimizerKind::kLars: return kernels::Optimizer::kLars;
    case OptimizerKind::kAdam:
    case OptimizerKind::kLazyAdam: return kernels::Optimizer::kAdam;
  }
  return kernels::Optimizer::kSgdMomentum;
}

// Everything a step's pricing shares.
struct Pricing {
  const ModelGraph& graph;
  const StepConfig& config;
  const topology::Slice& slice;
  const ProjectionOptions& options;
  int64_t k = 1;  // cores per replica

  // The halo exchange of `rows` rows of `row_elements` for `examples` on the
  // replica's cores; 0 when nothing is exchanged.
  Result<double> Halo(const topology::LogicalTopology& replica, int64_t rows, int64_t row_elements,
                      double examples, double eb) const {
    if (k <= 1 || rows <= 0) return 0.0;
    const double side = double(rows) * double(row_elements) * examples * eb;
    // halo_exchange takes the whole buffer: [top halo | interior (2 h) | bottom halo].
    return topology::CollectiveTime("halo_exchange", 4 * side, replica);
  }
};

struct OpsResult {
  CategoryTimes time;  // mxu, vector, hbm, idle, halo
  std::vector<OpRow> rows;
  double backward_compute_s = 0;
  double compute_s = 0;
};

// Prices `ops` at `examples` per replica: forward, and backward when
// `train`.
Result<OpsResult> PriceOps(const Pricing& p, const std::vector<Op>& ops, int64_t examples, bool train) {
  OpsResult r;
  const kernels::CoreSpec& core = p.slice.system().core;
  const Overlap& ov = p.options.overlap;
  std::optional<topology::LogicalTopology> replica;
  if (p.k > 1) {
    PODBENCH_ASSIGN_OR_RETURN(replica, topology::LogicalTopology::ReplicaGroups(p.slice, static_cast<int>(p.k), 1));
  }
  const ParamIndex params = IndexParams(p.graph);
  std::set<std::string_view> counted;
  // A run of consecutive pinned ops: each core's forward and backward
  // seconds. The cores run their ops side by side, so the run takes its
  // busiest core's time; what the ops priced one after another took beyond
  // that was charged to idle and is taken back when the run closes.
  std::map<int64_t, double> run_fwd, run_bwd;
  auto close_run = [&] {
    for (std::map<int64_t, double>* run : {&run_fwd, &run_bwd}) {
      double sum = 0, busiest = 0;
      for (const auto& core_s : *run) {
        sum += core_s.second;
        busiest = std::max(busiest, core_s.second);
      }
      const double saved = sum - busiest;
      r.time[Category::kIdle] -= saved;
      r.compute_s -= saved;
      if (run == &run_bwd) r.backward_compute_s -= saved;
      run->clear();
    }
  };
  for (const Op& op : ops) {
    if (op.placement != Placement::kPinnedCore0 || p.k <= 1) close_run();
    const bool split = op.placement == Placement::kSplit && p.k > 1;
    const double work = op.placement == Placement::kPinnedCore0 ? 1.0 / static_cast<double>(p.k)
                        : split                                  ? SplitUsefulFraction(op, p.k)
                                                                 : 1.0;
    const bool trains = train && Trains(op, params);
    const OpPasses c = PriceOp(split ? CoreShare(op, p.k) : op, examples, trains, core, p.options.fuse_elementwise);
    OpRow row;
    row.name = op.name;
    row.kind = op.kind();
    row.shape = OpShape(op);
    row.placement = op.placement;
    row.pinned_core = p.k > 0 ? op.pinned_core % p.k : 0;
    row.fused = op.fused;
    for (const std::string& name : op.params) {
      auto it = params.find(name);
      if (it != params.end() && counted.insert(name).second) row.params += it->second->elements();
    }
    row.flops = 2.0 * OpMacs(op) * static_cast<double>(examples);
    row.forward_s = OpSeconds(c.forward, ov);
    row.bound = c.forward.bound();
    row.mxu_utilisation = c.forward.mxu_utilisation();
    Charge(r.time, c.forward, ov, work);
    r.compute_s += row.forward_s;
    if (train && op.recomputed) {  // the backward pass runs it
      row.backward_s = row.forward_s;
      row.forward_s = 0;
      r.backward_compute_s += row.backward_s;
    }
    if (train && c.has_backward) {
      const double backward_s = OpSeconds(c.backward, ov);
      row.backward_s += backward_s;
      Charge(r.time, c.backward, ov, work);
      r.backward_compute_s += backward_s;
      r.compute_s += backward_s;
    }
    if (split) {
      const HaloRows h = HaloRowsOf(op);
      // One exchange per sequential step.
      const double n = double(examples) * double(op.instances), steps = double(op.sequential_steps);
      const double eb = BytesOf(op.dtype);
      PODBENCH_ASSIGN_OR_RETURN(double fwd, p.Halo(*replica, h.forward, h.forward_row_elements, n, eb));
      fwd *= steps;
      double bwd = 0;
      if (train && op.needs_input_grad) {
        PODBENCH_ASSIGN_OR_RETURN(bwd, p.Halo(*replica, h.backward, h.backward_row_elements, n, eb));
        bwd *= steps;
      }
      row.halo_s = fwd + bwd;
      const double exposed = ov.halo_with_compute
                                 ? std::max(0.0, fwd - row.forward_s) + std::max(0.0, bwd - row.backward_s)
                                 : row.halo_s;
      r.time[Category::kHalo] += exposed;
    }
    if (op.placement == Placement::kPinnedCore0 && p.k > 1) {
      run_fwd[row.pinned_core] += row.forward_s;
      run_bwd[row.pinned_core] += row.backward_s;
    }
    r.rows.push_back(std::move(row));
  }
  close_run();
  return r;
}

// The rows an embedding table's sparse update touches in a step, as
// elements; nullopt when the table's update is dense.
std::optional<double> SparseUpdateElements(const ModelGraph& g, const Param& param, int64_t global_examples,
                                           OptimizerKind opt) {
  if (!param.sparse_gradient || opt == OptimizerKind::kAdam || opt == OptimizerKind::kLars) return std::nullopt;
  if (param.shape.empty() || param.shape.front() < 1) return std::nullopt;
  double tokens = 0;
  for (const Op& op : g.train) {
    if (std::find(op.params.begin(), op.params.end(), param.name) == op.params.end()) continue;
    const auto* e = std::get_if<EmbeddingAttrs>(&op.attrs);
    if (e == nullptr) return std::nullopt;  // used densely too (a shared softmax weight)
    tokens += double(e->tokens) * double(op.instances) * double(op.sequential_steps) * double(global_examples);
  }
  const double rows = double(param.shape.front());
  const double row_elements = double(param.elements()) / rows;
  return std::min(rows, tokens) * row_elements;
}

Status Invalid(const std::string& what) { return Status::InvalidArgument("projection: " + what); }

}  // namespace

Status ValidateProjection(const ModelGraph& graph, const StepConfig& config, const topology::Slice& slice,
                          const ProjectionOptions& options) {
  const ParallelLayout& l = config.layout;
  PODBENCH_RETURN_IF_ERROR(l.Validate(slice.num_cores()).WithContext(slice.name()));
  if (config.per_replica_batch < 1) {
    return Invalid("per_replica_batch " + std::to_string(config.per_replica_batch) + " must be >= 1");
  }
  if (config.eval_per_replica_batch < 1) {
    return Invalid("eval_per_replica_batch " + std::to_string(config.eval_per_replica_batch) + " must be >= 1");
  }
  auto algo = topology::AlgorithmRegistry::Global().Create(l.allreduce);
  if (!algo.ok() || (*algo)->kind() != topology::CollectiveKind::kAllReduce) {
    return Invalid("allreduce '" + l.allreduce + "' is not a registered all-reduce (" +
                   (algo.ok() ? std::string("it is a ") + topology::KindName((*algo)->kind())
                              : algo.status().message()) +
                   ")");
  }
  if (l.weight_update_sharding) {
    auto pair = topology::ShardedPairOf(l.allreduce);
    if (!pair.ok()) return Invalid("weight_update_sharding with allreduce '" + l.allreduce + "': " + pair.status().message());
  }
  auto bn = topology::AlgorithmRegistry::Global().Create(options.bn_algorithm);
  if (!bn.ok() || (*bn)->kind() != topology::CollectiveKind::kAllReduce) {
    return Invalid("bn_algorithm '" + options.bn_algorithm + "' is not a registered all-reduce");
  }
  const int k = static_cast<int>(l.cores_per_replica);
  if (k > 1) {
    auto groups = topology::LogicalTopology::ReplicaGroups(slice, k, 1);
    if (!groups.ok()) return Invalid("cores_per_replica " + std::to_string(k) + ": " + groups.status().message());
  }
  if (l.bn_group * l.cores_per_replica > 1) {
    auto groups = topology::LogicalTopology::ReplicaGroups(slice, k, static_cast<int>(l.bn_group));
    if (!groups.ok()) return Invalid("bn_group " + std::to_string(l.bn_group) + ": " + groups.status().message());
  }
  if (graph.train.empty()) return Invalid("model '" + graph.name + "' has no training ops");
  const ParamIndex params = IndexParams(graph);
  for (const std::vector<Op>* list : {&graph.train, &graph.eval}) {
    for (const Op& op : *list) {
      for (const std::string& p : op.params) {
        if (params.count(p) == 0) return Invalid("op " + op.name + " reads unknown parameter '" + p + "'");
      }
      if (op.instances < 1 || op.sequential_steps < 1) {
        return Invalid("op " + op.name + ": instances and sequential_steps must be >= 1");
      }
    }
  }
  return Status::Ok();
}

Result<StepProjection> ProjectTrainStep(const ModelGraph& graph, const StepConfig& config,
                                        const topology::Slice& slice, const ProjectionOptions& options) {
  PODBENCH_RETURN_IF_ERROR(ValidateProjection(graph, config, slice, options));
  const ParallelLayout& l = config.layout;
  const Pricing p{graph, config, slice, options, l.cores_per_replica};
  const kernels::CoreSpec& core = slice.system().core;
  const Overlap& ov = options.overlap;
  PODBENCH_ASSIGN_OR_RETURN(OpsResult ops, PriceOps(p, graph.train, config.per_replica_batch, true));
  StepProjection step;
  step.time = ops.time;
  step.ops = std::move(ops.rows);
  step.global_examples = config.per_replica_batch * l.replicas;

  // Distributed batch norm.
  const int k = static_cast<int>(l.cores_per_replica);
  if (l.bn_group * l.cores_per_replica > 1) {
    PODBENCH_ASSIGN_OR_RETURN(auto groups,
                              topology::LogicalTopology::ReplicaGroups(slice, k, static_cast<int>(l.bn_group)));
    std::map<std::pair<int64_t, bool>, double> per_channels;
    double sync = 0;
    for (const Op& op : graph.train) {
      const auto* n = std::get_if<NormAttrs>(&op.attrs);
      if (n == nullptr || n->kind != NormAttrs::kBatch || n->frozen) continue;
      const std::pair<int64_t, bool> key{n->channels, n->concat_stats};
      auto it = per_channels.find(key);
      if (it == per_channels.end()) {
        const double c_bytes = double(n->channels) * kernels::kF32Bytes;
        PODBENCH_ASSIGN_OR_RETURN(double one, topology::CollectiveTime(options.bn_algorithm, c_bytes, groups));
        PODBENCH_ASSIGN_OR_RETURN(double two, topology::CollectiveTime(options.bn_algorithm, 2 * c_bytes, groups));
        // Forward: mean and variance (two of C, or one of 2C); backward: the
        // two gradient sums in one of 2C.
        it = per_channels.emplace(key, (n->concat_stats ? two : 2 * one) + two).first;
      }
      sync += it->second;
    }
    step.time[Category::kBnSync] = ov.bn_sync_with_compute ? std::max(0.0, sync - ops.compute_s) : sync;
  }

  // Gradient summation and the update.
  double trainable = 0, updated = 0;
  int64_t lars_tensors = 0;
  for (const Param& prm : graph.params) {
    if (!prm.trainable) continue;
    const double e = double(prm.elements());
    trainable += e;
    updated += SparseUpdateElements(graph, prm, step.global_examples, config.optimizer).value_or(e);
    if (!prm.norm_or_bias) ++lars_tensors;
  }
  const int64_t cores = l.cores();
  if (cores > 1 && trainable > 0) {
    PODBENCH_ASSIGN_OR_RETURN(auto all, topology::LogicalTopology::ReplicaGroups(slice, k, static_cast<int>(l.replicas)));
    const double grad_bytes = trainable * BytesOf(l.gradient_dtype);
    double sum = 0;
    if (l.weight_update_sharding) {
      PODBENCH_ASSIGN_OR_RETURN(topology::ShardedAllReduce pair, topology::ShardedPairOf(l.allreduce));
      PODBENCH_ASSIGN_OR_RETURN(double rs, topology::CollectiveTime(pair.reduce_scatter, grad_bytes, all));
      PODBENCH_ASSIGN_OR_RETURN(double ag,
                                topology::CollectiveTime(pair.all_gather, trainable * kernels::kF32Bytes, all));
      sum = rs + ag;
      if (config.optimizer == OptimizerKind::kLars && lars_tensors > 0) {
        PODBENCH_ASSIGN_OR_RETURN(
            double norms, topology::CollectiveTime(l.allreduce, 2.0 * double(lars_tensors) * kernels::kF32Bytes, all));
        sum += norms;
      }
    } else {
      PODBENCH_ASSIGN_OR_RETURN(sum, topology::CollectiveTime(l.allreduce, grad_bytes, all));
    }
    step.time[Category::kGradients] = ov.gradients_with_backward ? std::max(0.0, sum - ops.backward_compute_s) : sum;
  }
  if (updated > 0) {
    const double mine = l.weight_update_sharding && cores > 1 ? std::ceil(updated / double(cores)) : updated;
    const OpCost opt = kernels::OptimizerCost(core, static_cast<int64_t>(mine), KernelOptimizer(config.optimizer));
    step.time[Category::kOptimizer] = OpSeconds(opt, ov);
  }

  // Host input.
  if (graph.host.infeed_bytes > 0) {
    step.host_input_s = HostInputSeconds(graph.host, step.global_examples, slice);
    const double device = step.time.device_s();
    step.time[Category::kInput] =
        ov.input_with_device ? std::max(0.0, step.host_input_s - device) : step.host_input_s;
    // A few infeed hosts: the cross-replica sum that hands every core its
    // examples runs on the device before the step's forward pass.
    const double spread = InfeedDistributionBytes(graph.host, step.global_examples, slice);
    if (spread > 0 && cores > 1) {
      PODBENCH_ASSIGN_OR_RETURN(auto all,
                                topology::LogicalTopology::ReplicaGroups(slice, k, static_cast<int>(l.replicas)));
      PODBENCH_ASSIGN_OR_RETURN(double sum, topology::CollectiveTime(l.allreduce, spread, all));
      step.time[Category::kInput] += sum;
    }
  }
  return step;
}

Result<StepProjection> ProjectEvalStep(const ModelGraph& graph, const StepConfig& config,
                                       const topology::Slice& slice, const ProjectionOptions& options) {
  PODBENCH_RETURN_IF_ERROR(ValidateProjection(graph, config, slice, options));
  const Pricing p{graph, config, slice, options, config.layout.cores_per_replica};
  PODBENCH_ASSIGN_OR_RETURN(OpsResult ops, PriceOps(p, graph.eval, config.eval_per_replica_batch, false));
  StepProjection step;
  step.time = ops.time;
  step.ops = std::move(ops.rows);
  step.global_examples = config.eval_per_replica_batch * config.layout.replicas;
  if (graph.host.outfeed_bytes > 0) {
    step.time[Category::kInput] = OutfeedSeconds(graph.host, step.global_examples, slice);
  }
  return step;
}

double EvalProjection::exposed_s(double next_block_s) const {
  return device_s +
         (scoring_overlapped ? std::max(0.0, scoring_s - static_cast<double>(scoring_pool) * next_block_s) : scoring_s);
}

Result<EvalProjection> ProjectEvaluation(const ModelGraph& graph, const StepConfig& config,
                                         const topology::Slice& slice, int64_t eval_examples,
                                         const ProjectionOptions& options) {
  if (eval_examples < 1) return Invalid("eval_examples " + std::to_string(eval_examples) + " must be >= 1");
  EvalProjection e;
  PODBENCH_ASSIGN_OR_RETURN(e.step, ProjectEvalStep(graph, config, slice, options));
  int64_t per_step = e.step.global_examples;
  if (!options.distributed_eval) {
    // One host's replicas evaluate; a replica's partitions stay together.
    const int64_t host_cores =
        static_cast<int64_t>(slice.system().host.chips_per_host) * static_cast<int64_t>(slice.system().chip.cores);
    const int64_t replicas = std::clamp<int64_t>(host_cores / config.layout.cores_per_replica, 1,
                                                 config.layout.replicas);
    per_step = config.eval_per_replica_batch * replicas;
  }
  e.steps = CeilDiv(eval_examples, per_step);
  e.device_s = double(e.steps) * e.step.step_s();
  if (!options.overlap.eval_input_with_training && graph.host.infeed_bytes > 0) {
    e.device_s += double(e.steps) * HostInputSeconds(graph.host, e.step.global_examples, slice);
  }
  e.scoring_s = HostScoringSeconds(graph.host, eval_examples, slice);
  e.scoring_overlapped = options.overlap.eval_scoring_with_training;
  e.scoring_pool = std::max(1, graph.host.scoring_pool);
  return e;
}

}  // namespace podbench::projection
