#include "workloads/ssd/ssd_functional.h"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/pooling.h"
#include "topology/algorithm.h"
#include "topology/collectives.h"
#include "topology/logical.h"
#include "topology/slice.h"
#include "workloads/functional/data_parallel.h"
#include "workloads/functional/spatial_partition.h"

namespace podbench::ssd {

using functional::RowRange;
using functional::PlanWindow;
using functional::RowsOfCore;
using functional::WindowPlan;
using kernels::Conv2dShape;

namespace {

using StepKind = functional::StripStepKind;

bool Windowed(OpKind k) { return k == OpKind::kConv || k == OpKind::kMaxPool; }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

float* F(topology::CoreBuffers& b, int core) { return reinterpret_cast<float*>(b.Data(core)); }

}  // namespace

namespace {

// A step of FunctionalSsd::Plan: an op of the network, or a gather.
struct SsdStep {
  StepKind kind = StepKind::kOp;
  const Op* op = nullptr;  // kOp
  int in = 0, in2 = -1, out = 0;  // plan tensors
  bool replicated = false;
  WindowPlan window;  // conv and pool (k = 1 for a replicated op)
  int64_t bn = -1;    // first channel of this BN's statistics
};

}  // namespace

// How a network runs over the k cores of a replica (functional::StripPlan):
// once an op runs replicated (its window reaches past a neighbour's strip;
// its split input gathered first), every op after it on that path does.
struct FunctionalSsd::Plan : functional::StripPlan<TensorShape, SsdStep> {
  using Step = SsdStep;
  std::vector<int> levels;  // the heads' outputs
  int64_t bn_channels = 0;

  static Plan Make(const SsdNet& net, int k) {
    Plan p;
    p.k = k;
    std::vector<int> map(net.tensors.size(), -1), gathered(net.tensors.size(), -1);
    map[0] = p.Add(net.tensors[0], false);
    auto whole = [&](int nt) { return p.Whole(map[static_cast<size_t>(nt)], gathered[static_cast<size_t>(nt)]); };
    for (const Op& op : net.ops) {
      Step s;
      s.op = &op;
      const TensorShape& x = net.tensors[static_cast<size_t>(op.in)];
      const TensorShape& y = net.tensors[static_cast<size_t>(op.out)];
      bool rep = p.replicated[static_cast<size_t>(map[static_cast<size_t>(op.in)])] ||
                 (op.in2 >= 0 && p.replicated[static_cast<size_t>(map[static_cast<size_t>(op.in2)])]);
      if (Windowed(op.kind)) {
        s.window = PlanWindow(x.h, y.h, k, op.kernel, op.stride, op.pad);
        if (!s.window.partitionable) rep = true;
        if (rep) s.window = PlanWindow(x.h, y.h, 1, op.kernel, op.stride, op.pad);
      }
      s.in = rep ? whole(op.in) : map[static_cast<size_t>(op.in)];
      if (op.in2 >= 0) s.in2 = rep ? whole(op.in2) : map[static_cast<size_t>(op.in2)];
      s.replicated = rep;
      s.out = map[static_cast<size_t>(op.out)] = p.Add(y, rep);
      if (op.kind == OpKind::kBatchNorm) {
        s.bn = p.bn_channels;
        p.bn_channels += y.c;
      }
      p.steps.push_back(s);
    }
    for (int t : net.level_outputs) p.levels.push_back(map[static_cast<size_t>(t)]);
    return p;
  }
};

// The topology side: logical views, per-step buffers with their schedules,
// and the barrier the cores meet at for every collective: when the last core
// arrives, the barrier's completion runs the pending schedule on everyone's
// buffers, then releases them all (one meeting per collective).
struct FunctionalSsd::Comms {
  struct Buffer {
    std::unique_ptr<topology::CoreBuffers> buf;
    topology::Schedule sched;
  };
  struct RunPending {
    Comms* comms;
    void operator()() noexcept { comms->RunPendingSchedule(); }
  };
  Comms(topology::RankGroup& g, topology::CoreBlock l) : group(g), local(l), barrier(l.size(), RunPending{this}) {}
  void RunPendingSchedule() {
    if (pending == nullptr) return;
    Status s = group.Run(pending->sched, *pending->buf, 1);
    if (!s.ok() && error.ok()) error = s;
    pending = nullptr;
  }
  // Every local core calls it once its part of `b` is written; returns when
  // the collective has run (over the ranks). REQUIRES: all cores call it
  // with the same buffer.
  void Run(int /*cores*/, int core, Buffer& b) {
    if (core == local.begin) pending = &b;  // read by the completion, after this core arrived
    if (local.size() > 1) {
      barrier.arrive_and_wait();
    } else {
      RunPendingSchedule();
    }
  }
  std::optional<topology::Slice> slice;
  std::optional<topology::LogicalTopology> whole, replica, bn_group;
  std::vector<Buffer> step;  // per training step: halo exchange or gather
  std::vector<Buffer> bn;    // per training step: BN statistics
  Buffer pred;               // predictions and their gradient within a replica
  topology::RankGroup& group;
  topology::CoreBlock local;  // this process's cores
  Buffer* pending = nullptr;
  Status error;  // of a collective
  std::barrier<RunPending> barrier;
};

struct FunctionalSsd::Core {
  class Reducer;
  std::vector<std::vector<float>> act, grad, eval_act;
  std::vector<float> ext, tmp;
  std::vector<float> mean, inv_std, running_mean, running_var;
  std::unique_ptr<Reducer> reducer;
  double loss = 0;
};

namespace {

Result<topology::Schedule> BuildSchedule(const std::string& name, const topology::LogicalTopology& lt,
                                         uint64_t elements) {
  PODBENCH_ASSIGN_OR_RETURN(auto algo, topology::AlgorithmRegistry::Global().Create(name));
  return algo->Build(lt, elements);
}

}  // namespace

FunctionalSsd::FunctionalSsd() = default;
FunctionalSsd::~FunctionalSsd() = default;

Result<std::unique_ptr<FunctionalSsd>> FunctionalSsd::Create(const FunctionalConfig& config) {
  std::unique_ptr<FunctionalSsd> s(new FunctionalSsd());
  PODBENCH_RETURN_IF_ERROR(s->Setup(config));
  return s;
}

const float* FunctionalSsd::gradient() const { return dp_->summed_gradient(dp_->local_cores().begin); }

class FunctionalSsd::Core::Reducer : public kernels::BatchNormStatsReducer {
 public:
  Reducer(FunctionalSsd* net, int core) : net_(net), core_(core) {}
  void AllReduceSum(std::span<double> partials) override {
    auto& b = net_->comms_->bn[step];
    float* mine = F(*b.buf, core_);
    const bool silent = replicated && core_ % net_->cfg_.partitions != 0;
    for (size_t i = 0; i < partials.size(); ++i) mine[i] = silent ? 0.f : static_cast<float>(partials[i]);
    net_->comms_->Run(net_->cores_, core_, b);
    for (size_t i = 0; i < partials.size(); ++i) partials[i] = mine[i];
  }
  size_t step = 0;
  bool replicated = false;

 private:
  FunctionalSsd* net_;
  int core_;
};

Status FunctionalSsd::Setup(const FunctionalConfig& config) {
  cfg_ = config;
  PODBENCH_RETURN_IF_ERROR(cfg_.net.Validate());
  net_ = BuildSsdNet(cfg_.net);
  const topology::SystemSpec& sys = cfg_.system ? *cfg_.system : topology::DefaultSystem();
  std::optional<topology::Slice> slice;
  if (!cfg_.slice.empty()) {
    PODBENCH_ASSIGN_OR_RETURN(slice, topology::Slice::FromName(cfg_.slice, sys));
    cores_ = slice->num_cores();
  }
  const int k = cfg_.partitions;
  if (k < 1 || cores_ % k != 0) {
    return Status::InvalidArgument("ssd functional: partitions " + std::to_string(k) + " must divide the " +
                                   std::to_string(cores_) + " cores");
  }
  const int replicas = cores_ / k;
  if (cfg_.global_batch < replicas || cfg_.global_batch % replicas != 0) {
    return Status::InvalidArgument("ssd functional: global batch " + std::to_string(cfg_.global_batch) +
                                   " must be a positive multiple of the " + std::to_string(replicas) + " replicas");
  }
  if (cfg_.bn_group < 1 || replicas % cfg_.bn_group != 0) {
    return Status::InvalidArgument("ssd functional: bn_group " + std::to_string(cfg_.bn_group) +
                                   " must divide the " + std::to_string(replicas) + " replicas");
  }
  if (cfg_.negatives_per_positive < 0) {
    return Status::InvalidArgument("ssd functional: negatives_per_positive must be >= 0");
  }
  train_plan_ = std::make_unique<Plan>(Plan::Make(net_, k));
  eval_plan_ = std::make_unique<Plan>(Plan::Make(net_, 1));
  const Plan& tp = *train_plan_;
  const int64_t n = cfg_.global_batch / replicas;
  const int64_t A = net_.anchors.NumAnchors(), P = net_.pred_width();

  // Communication: per-step buffers and schedules, built once.
  // Threads and the gradient summation: the shared data-parallel machinery.
  functional::DataParallelConfig dpc;
  dpc.cores = cores_;
  dpc.slice = cfg_.slice;
  dpc.system = &sys;
  dpc.allreduce = cfg_.allreduce;
  dpc.ranks = cfg_.ranks;
  PODBENCH_ASSIGN_OR_RETURN(dp_, functional::DataParallel::Create(dpc, net_.num_params));
  const topology::CoreBlock local = dp_->local_cores();
  comms_ = std::make_unique<Comms>(dp_->ranks(), local);
  Comms& cm = *comms_;
  cm.step.resize(tp.steps.size());
  cm.bn.resize(tp.steps.size());
  if (slice) {
    cm.slice = std::move(slice);
    cm.whole = topology::LogicalTopology::WholeSlice(*cm.slice);
    PODBENCH_ASSIGN_OR_RETURN(cm.replica, topology::LogicalTopology::ReplicaGroups(*cm.slice, k, 1));
    PODBENCH_ASSIGN_OR_RETURN(cm.bn_group, topology::LogicalTopology::ReplicaGroups(*cm.slice, k, cfg_.bn_group));
    auto make = [&](Comms::Buffer& b, const std::string& algo, const topology::LogicalTopology& lt,
                    uint64_t elements) -> Status {
      b.buf = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, elements, local.begin, local.end);
      PODBENCH_ASSIGN_OR_RETURN(b.sched, BuildSchedule(algo, lt, elements));
      return Status::Ok();
    };
    for (size_t i = 0; i < tp.steps.size(); ++i) {
      const Plan::Step& s = tp.steps[i];
      const TensorShape& x = tp.shape[static_cast<size_t>(s.in)];
      if (s.kind == StepKind::kGather) {
        PODBENCH_RETURN_IF_ERROR(make(cm.step[i], "ring", *cm.replica, static_cast<uint64_t>(n * x.elems())));
      } else if (Windowed(s.op->kind) && s.window.halo > 0) {
        PODBENCH_RETURN_IF_ERROR(make(cm.step[i], "halo_exchange", *cm.replica,
                                      static_cast<uint64_t>(4 * n * s.window.halo * x.w * x.c)));
      }
      if (s.kind == StepKind::kOp && s.op->kind == OpKind::kBatchNorm && k * cfg_.bn_group > 1) {
        PODBENCH_RETURN_IF_ERROR(make(cm.bn[i], "ring", *cm.bn_group, static_cast<uint64_t>(2 * x.c + 1)));
      }
    }
    if (k > 1) PODBENCH_RETURN_IF_ERROR(make(cm.pred, "ring", *cm.replica, static_cast<uint64_t>(n * A * P)));
  }
  if (!cm.pred.buf) {
    cm.pred.buf = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, static_cast<uint64_t>(n * A * P),
                                                          local.begin, local.end);
  }

  // Initial weights: He normal backbone and extra convolutions, Xavier
  // uniform heads (biases 0), BN gamma 1 (0 on a residual branch's last BN),
  // beta 0.
  params_.assign(static_cast<size_t>(net_.num_params), 0.f);
  momentum_.assign(params_.size(), 0.f);
  std::mt19937_64 rng(cfg_.seed);
  for (const Op& op : net_.ops) {
    if (op.param < 0) continue;
    float* p = params_.data() + op.param;
    const TensorShape& x = net_.tensors[static_cast<size_t>(op.in)];
    const TensorShape& y = net_.tensors[static_cast<size_t>(op.out)];
    if (op.kind == OpKind::kConv) {
      const int64_t nw = int64_t{op.kernel} * op.kernel * x.c * y.c;
      const double fan_in = double(op.kernel) * op.kernel * x.c, fan_out = double(op.kernel) * op.kernel * y.c;
      if (op.bias) {
        const float lim = static_cast<float>(std::sqrt(6.0 / (fan_in + fan_out)));
        std::uniform_real_distribution<float> d(-lim, lim);
        for (int64_t i = 0; i < nw; ++i) p[i] = d(rng);
      } else {
        std::normal_distribution<float> d(0.f, static_cast<float>(std::sqrt(2.0 / fan_in)));
        for (int64_t i = 0; i < nw; ++i) p[i] = d(rng);
      }
    } else if (op.kind == OpKind::kBatchNorm) {
      const bool branch_end = EndsWith(op.name, ".conv2.bn") && op.name.find(".block") != std::string::npos;
      std::fill(p, p + y.c, branch_end ? 0.f : 1.f);
    }
  }

  core_.resize(static_cast<size_t>(cores_));  // this process's cores only
  for (int c = local.begin; c < local.end; ++c) {
    auto core = std::make_unique<Core>();
    const size_t bn = static_cast<size_t>(tp.bn_channels);
    core->running_mean.assign(bn, 0.f);
    core->running_var.assign(bn, 1.f);
    core->mean.assign(bn, 0.f);
    core->inv_std.assign(bn, 1.f);
    core->act.resize(tp.shape.size());
    core->grad.resize(tp.shape.size());
    for (size_t t = 0; t < tp.shape.size(); ++t) {
      core->act[t].resize(tp.Local(static_cast<int>(t), c % k, n));
      core->grad[t].resize(core->act[t].size());
    }
    core->eval_act.resize(eval_plan_->shape.size());
    if (k * cfg_.bn_group > 1) core->reducer = std::make_unique<Core::Reducer>(this, c);
    core_[static_cast<size_t>(c)] = std::move(core);
  }
  last_pred_.assign(static_cast<size_t>(cfg_.global_batch * A * P), 0.f);
  replica_loss_.assign(static_cast<size_t>(replicas), 0.0);

  // What the busiest core does per op, for the step's pricing.
  for (const Plan::Step& s : tp.steps) {
    PlannedOp po;
    po.op = s.op;
    po.in = tp.shape[static_cast<size_t>(s.in)];
    po.out = tp.shape[static_cast<size_t>(s.out)];
    po.replicated = s.replicated;
    for (int i = 0; i < k; ++i) {
      const int wi = s.replicated ? 0 : i;
      int in_rows = tp.Rows(s.in, i).size(), out_rows = tp.Rows(s.out, i).size();
      if (s.kind == StepKind::kOp && Windowed(s.op->kind)) {
        out_rows = s.window.out[static_cast<size_t>(wi)].size();
        in_rows = std::min(s.window.hi[static_cast<size_t>(wi)], po.in.h) - std::max(s.window.lo[static_cast<size_t>(wi)], 0);
        po.halo = s.window.halo;
      }
      po.in_rows = std::max(po.in_rows, in_rows);
      po.out_rows = std::max(po.out_rows, out_rows);
    }
    planned_.push_back(po);
  }
  return Status::Ok();
}

namespace {

// The input of a windowed op (convolution, max pool) as one core reads it,
// and the shapes the kernels then run on: x itself when `direct` (the core
// holds every input row and computes every output row), else rows [lo, hi)
// built in `ext` by functional::BuildWindowInput (zeros, or -inf for max pooling,
// outside the image), padding columns included, so the op runs unpadded.
struct WindowedInput {
  const float* in;
  int64_t n;
  int rows, width, c, pad;
};

WindowedInput BuildWindowedInput(const Op& op, const TensorShape& xs, const float* x, const RowRange& own,
                                 const float* halo_buf, int halo, bool direct, int lo, int hi, int64_t n,
                                 std::vector<float>& ext) {
  if (direct) return {x, n, xs.h, xs.w, xs.c, op.pad};
  const float fill = op.kind == OpKind::kConv ? 0.f : -std::numeric_limits<float>::infinity();
  functional::BuildWindowInput(x, own, halo_buf, halo, xs.h, xs.w, xs.c, op.pad, lo, hi, n, fill, ext);
  return {ext.data(), n, hi - lo, xs.w + 2 * op.pad, xs.c, 0};
}

Conv2dShape ConvShapeOf(const Op& op, const WindowedInput& w, int out_channels) {
  Conv2dShape cs;
  cs.n = w.n;
  cs.h = w.rows;
  cs.w = w.width;
  cs.c = w.c;
  cs.oc = out_channels;
  cs.kh = cs.kw = op.kernel;
  cs.stride = op.stride;
  cs.pad = w.pad;
  return cs;
}

kernels::Pool2dShape PoolShapeOf(const Op& op, const WindowedInput& w) {
  kernels::Pool2dShape ps;
  ps.n = w.n;
  ps.h = w.rows;
  ps.w = w.width;
  ps.c = w.c;
  ps.kh = ps.kw = op.kernel;
  ps.stride = op.stride;
  ps.pad = w.pad;
  return ps;
}

}  // namespace

void FunctionalSsd::Forward(const Plan& plan, int c, const float* images, int64_t n, bool training) {
  Core& core = *core_[static_cast<size_t>(c)];
  const int pos = training ? c % plan.k : 0;
  auto& act = training ? core.act : core.eval_act;
  for (size_t t = 0; t < plan.shape.size(); ++t) act[t].resize(plan.Local(static_cast<int>(t), pos, n));
  {
    const TensorShape& s = plan.shape[0];
    functional::CopyStrip(images, plan.Rows(0, pos), s.h, static_cast<size_t>(s.w) * s.c, n, act[0].data());
  }
  const Core& stats = training ? core : *core_[0];  // inference: replica 0's moving averages
  for (size_t si = 0; si < plan.steps.size(); ++si) {
    const Plan::Step& s = plan.steps[si];
    const float* x = act[static_cast<size_t>(s.in)].data();
    float* y = act[static_cast<size_t>(s.out)].data();
    const TensorShape& xs = plan.shape[static_cast<size_t>(s.in)];
    const TensorShape& ys = plan.shape[static_cast<size_t>(s.out)];
    const RowRange own = plan.Rows(s.in, pos);
    if (s.kind == StepKind::kGather) {  // training plans only
      auto& b = comms_->step[si];
      float* buf = F(*b.buf, c);
      std::fill(buf, buf + b.buf->elements(), 0.f);
      functional::PlaceStrip(x, own, xs.h, static_cast<size_t>(xs.w) * xs.c, n, buf);
      comms_->Run(cores_, c, b);
      std::memcpy(y, buf, act[static_cast<size_t>(s.out)].size() * sizeof(float));
      continue;
    }
    const Op& op = *s.op;
    const float* p = op.param >= 0 ? params_.data() + op.param : nullptr;
    const int64_t out_elems = static_cast<int64_t>(act[static_cast<size_t>(s.out)].size());
    switch (op.kind) {
      case OpKind::kConv:
      case OpKind::kMaxPool: {
        const int wi = s.replicated ? 0 : pos;
        const int halo = training ? s.window.halo : 0;
        float* hbuf = nullptr;
        if (halo > 0) {
          auto& b = comms_->step[si];
          hbuf = F(*b.buf, c);
          functional::PackHalo(x, own, halo, n, static_cast<size_t>(xs.w) * xs.c, hbuf);
          comms_->Run(cores_, c, comms_->step[si]);
        }
        const RowRange out = s.window.out[static_cast<size_t>(wi)];
        if (out.empty()) break;
        const bool direct = own.begin == 0 && own.end == xs.h && out.begin == 0 && out.end == ys.h;
        const WindowedInput w =
            BuildWindowedInput(op, xs, x, own, hbuf, halo, direct, s.window.lo[static_cast<size_t>(wi)],
                               s.window.hi[static_cast<size_t>(wi)], n, core.ext);
        if (op.kind == OpKind::kConv) {
          kernels::Conv2dForward(ConvShapeOf(op, w, ys.c), w.in, p, y, cfg_.precision, 1);
          if (op.bias) kernels::AddBias(p + int64_t{op.kernel} * op.kernel * xs.c * ys.c, y, out_elems / ys.c, ys.c);
        } else {
          kernels::MaxPoolForward(PoolShapeOf(op, w), w.in, y);
        }
        break;
      }
      case OpKind::kBatchNorm: {
        const int64_t rows = out_elems / ys.c;
        const size_t at = static_cast<size_t>(s.bn);
        if (training) {
          kernels::BatchNormParams bp;
          bp.epsilon = cfg_.bn_epsilon;
          bp.momentum = cfg_.bn_momentum;
          if (core.reducer) {
            core.reducer->step = si;
            core.reducer->replicated = s.replicated;
          }
          kernels::BatchNormForwardTraining(x, rows, ys.c, p, p + ys.c, bp, y, core.mean.data() + at,
                                            core.inv_std.data() + at, core.running_mean.data() + at,
                                            core.running_var.data() + at, core.reducer.get());
        } else {
          kernels::BatchNormForwardInference(x, rows, ys.c, p, p + ys.c, stats.running_mean.data() + at,
                                             stats.running_var.data() + at, cfg_.bn_epsilon, y);
        }
        break;
      }
      case OpKind::kRelu:
        kernels::Relu(x, y, out_elems);
        break;
      case OpKind::kAdd:
        kernels::Add(x, act[static_cast<size_t>(s.in2)].data(), y, out_elems);
        break;
    }
  }
}

namespace {

// Copies level `level`'s head output (a plan tensor holding rows `rows` of
// every image) into predictions [n, anchors, P] in the anchors' order, or
// back (to_head).
void MapLevel(const detection::AnchorConfig& anchors, int level, int P, const RowRange& rows, int64_t n,
              float* head, float* pred, bool to_head) {
  const int f = anchors.feature_sizes[static_cast<size_t>(level)], A = anchors.PerLocation(level);
  const int64_t total = anchors.NumAnchors();
  for (int64_t img = 0; img < n; ++img) {
    for (int i = rows.begin; i < rows.end; ++i) {
      for (int j = 0; j < f; ++j) {
        for (int a = 0; a < A; ++a) {
          float* h = head + ((static_cast<size_t>(img) * rows.size() + static_cast<size_t>(i - rows.begin)) * f + j) *
                                static_cast<size_t>(A * P) +
                     static_cast<size_t>(a * P);
          float* d = pred + (static_cast<size_t>(img * total + anchors.Index(level, a, i, j))) * P;
          if (to_head) {
            std::memcpy(h, d, static_cast<size_t>(P) * sizeof(float));
          } else {
            std::memcpy(d, h, static_cast<size_t>(P) * sizeof(float));
          }
        }
      }
    }
  }
}

}  // namespace

void FunctionalSsd::AssemblePredictions(int c, int64_t n, float* out) {
  const Plan& plan = *train_plan_;
  const int pos = c % plan.k;
  auto& b = comms_->pred;
  float* buf = F(*b.buf, c);
  std::fill(buf, buf + b.buf->elements(), 0.f);
  for (size_t l = 0; l < plan.levels.size(); ++l) {
    const int t = plan.levels[l];
    // A replicated level is written once per replica, by its first core.
    if (plan.replicated[static_cast<size_t>(t)] && pos != 0) continue;
    MapLevel(net_.anchors, static_cast<int>(l), net_.pred_width(), plan.Rows(t, pos), n,
             core_[static_cast<size_t>(c)]->act[static_cast<size_t>(t)].data(), buf, false);
  }
  if (plan.k > 1) comms_->Run(cores_, c, b);
  if (pos == 0) std::memcpy(out, buf, b.buf->elements() * sizeof(float));
}

void FunctionalSsd::ComputeLoss(int c, int64_t n, const DetectionBatch& batch) {
  const Plan& plan = *train_plan_;
  auto& b = comms_->pred;
  float* buf = F(*b.buf, c);
  const int64_t A = net_.anchors.NumAnchors(), P = net_.pred_width();
  const int64_t first = (c / plan.k) * n;  // the replica's first image
  Core& core = *core_[static_cast<size_t>(c)];
  core.loss = 0;
  if (c % plan.k != 0) {
    std::fill(buf, buf + b.buf->elements(), 0.f);
    return;
  }
  std::vector<float> dpred(static_cast<size_t>(A * P));
  const float scale = 1.f / static_cast<float>(cfg_.global_batch);
  for (int64_t img = 0; img < n; ++img) {
    const size_t g = static_cast<size_t>(first + img);
    const SsdLossParts parts =
        SsdImageLoss(buf + static_cast<size_t>(img * A * P), static_cast<int>(P), net_.classes_with_background(),
                     batch.labels.data() + g * static_cast<size_t>(A), batch.targets.data() + g * static_cast<size_t>(A) * 4,
                     A, cfg_.negatives_per_positive, scale, dpred.data());
    core.loss += parts.loss;
    std::memcpy(buf + static_cast<size_t>(img * A * P), dpred.data(), dpred.size() * sizeof(float));
  }
}

void FunctionalSsd::ScatterLossGradient(int c, int64_t n) {
  const Plan& plan = *train_plan_;
  const int pos = c % plan.k;
  auto& b = comms_->pred;
  if (plan.k > 1) comms_->Run(cores_, c, b);
  float* buf = F(*b.buf, c);
  for (size_t l = 0; l < plan.levels.size(); ++l) {
    const int t = plan.levels[l];
    MapLevel(net_.anchors, static_cast<int>(l), net_.pred_width(), plan.Rows(t, pos), n,
             core_[static_cast<size_t>(c)]->grad[static_cast<size_t>(t)].data(), buf, true);
  }
}

void FunctionalSsd::Backward(const Plan& plan, int c, int64_t n) {
  Core& core = *core_[static_cast<size_t>(c)];
  const int pos = c % plan.k;
  float* grads = dp_->gradient(c);
  std::fill(grads, grads + net_.num_params, 0.f);
  for (size_t t = 0; t < core.grad.size(); ++t) {
    if (std::find(plan.levels.begin(), plan.levels.end(), static_cast<int>(t)) == plan.levels.end()) {
      std::fill(core.grad[t].begin(), core.grad[t].end(), 0.f);
    }
  }
  const int group_cores = plan.k * cfg_.bn_group;
  for (size_t si = plan.steps.size(); si-- > 0;) {
    const Plan::Step& s = plan.steps[si];
    const TensorShape& xs = plan.shape[static_cast<size_t>(s.in)];
    const TensorShape& ys = plan.shape[static_cast<size_t>(s.out)];
    const RowRange own = plan.Rows(s.in, pos);
    const float* x = core.act[static_cast<size_t>(s.in)].data();
    const float* dy = core.grad[static_cast<size_t>(s.out)].data();
    float* dx = core.grad[static_cast<size_t>(s.in)].data();
    const size_t in_elems = core.act[static_cast<size_t>(s.in)].size();
    if (s.kind == StepKind::kGather) {  // every core holds the whole gradient: keep its strip
      functional::AddStrip(dy, own, xs.h, static_cast<size_t>(xs.w) * xs.c, n, dx);
      continue;
    }
    const Op& op = *s.op;
    const float* p = op.param >= 0 ? params_.data() + op.param : nullptr;
    // A replicated op's weight gradient counts once per replica.
    const bool owns_weights = !s.replicated || pos == 0;
    core.tmp.resize(in_elems);
    switch (op.kind) {
      case OpKind::kConv:
      case OpKind::kMaxPool: {
        const int wi = s.replicated ? 0 : pos;
        const int halo = s.window.halo;
        const bool need_dx = s.in != 0;
        const RowRange out = s.window.out[static_cast<size_t>(wi)];
        const int lo = s.window.lo[static_cast<size_t>(wi)], hi = s.window.hi[static_cast<size_t>(wi)];
        const bool direct = own.begin == 0 && own.end == xs.h && out.begin == 0 && out.end == ys.h;
        float* hbuf = halo > 0 ? F(*comms_->step[si].buf, c) : nullptr;
        std::vector<float>& dext = core.tmp;
        if (!out.empty()) {
          const WindowedInput w = BuildWindowedInput(op, xs, x, own, hbuf, halo, direct, lo, hi, n, core.ext);
          dext.resize(static_cast<size_t>(n) * w.rows * w.width * xs.c);
          if (op.kind == OpKind::kConv) {
            const Conv2dShape cs = ConvShapeOf(op, w, ys.c);
            if (owns_weights) {
              const int64_t nw = int64_t{op.kernel} * op.kernel * xs.c * ys.c;
              kernels::Conv2dBackwardFilter(cs, w.in, dy, grads + op.param, cfg_.precision, 1);
              if (op.bias) {
                kernels::BiasGrad(dy, grads + op.param + nw, n * out.size() * ys.w, ys.c);
              }
            }
            if (need_dx) kernels::Conv2dBackwardData(cs, dy, p, dext.data(), cfg_.precision, 1);
          } else {
            kernels::MaxPoolBackward(PoolShapeOf(op, w), w.in, dy, dext.data());
          }
        }
        if (!need_dx) break;
        if (direct) {
          if (!out.empty()) kernels::Axpy(1.f, dext.data(), dx, static_cast<int64_t>(in_elems));
          break;
        }
        // Own rows into dx; halo rows back to the neighbours that own them.
        functional::ScatterWindowGradient(out.empty() ? nullptr : dext.data(), own, xs.h, xs.w, xs.c, op.pad, lo, hi, n,
                                          halo, dx, hbuf);
        if (halo > 0) {
          comms_->Run(cores_, c, comms_->step[si]);
          functional::AddReturnedHaloGradient(hbuf, own, halo, n, static_cast<size_t>(xs.w) * xs.c, dx);
        }
        break;
      }
      case OpKind::kBatchNorm: {
        const int64_t rows = static_cast<int64_t>(in_elems) / ys.c;
        const size_t at = static_cast<size_t>(s.bn);
        if (core.reducer) {
          core.reducer->step = si;
          core.reducer->replicated = s.replicated;
        }
        float* dgamma = grads + op.param;
        kernels::BatchNormBackward(x, dy, rows, ys.c, p, core.mean.data() + at, core.inv_std.data() + at,
                                   core.tmp.data(), dgamma, dgamma + ys.c, core.reducer.get());
        // Every core of the group holds the group's totals: each adds its share.
        if (group_cores > 1) {
          kernels::Scale(1.f / static_cast<float>(group_cores), dgamma, dgamma, 2 * int64_t{ys.c});
        }
        kernels::Axpy(1.f, core.tmp.data(), dx, static_cast<int64_t>(in_elems));
        break;
      }
      case OpKind::kRelu:
        kernels::ReluGrad(x, dy, core.tmp.data(), static_cast<int64_t>(in_elems));
        kernels::Axpy(1.f, core.tmp.data(), dx, static_cast<int64_t>(in_elems));
        break;
      case OpKind::kAdd:
        kernels::Axpy(1.f, dy, dx, static_cast<int64_t>(in_elems));
        kernels::Axpy(1.f, dy, core.grad[static_cast<size_t>(s.in2)].data(), static_cast<int64_t>(in_elems));
        break;
    }
  }
}

Result<double> FunctionalSsd::ComputeGradients(const DetectionBatch& batch) {
  const int64_t A = net_.anchors.NumAnchors(), S = cfg_.net.image_size;
  const size_t B = static_cast<size_t>(cfg_.global_batch);
  if (batch.images.size() != B * static_cast<size_t>(S * S * 3) || batch.labels.size() != B * static_cast<size_t>(A) ||
      batch.targets.size() != B * static_cast<size_t>(A) * 4) {
    return Status::InvalidArgument("ssd functional: a batch of " + std::to_string(B) + " images of " +
                                   std::to_string(S) + "x" + std::to_string(S) + " with " + std::to_string(A) +
                                   " anchors each was expected");
  }
  const int64_t n = cfg_.global_batch / replicas();
  const int k = cfg_.partitions;
  // A failed collective is recorded (comms_->error) and every core finishes
  // the step, as the others wait for it at every collective.
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore([&](int c) {
    const int r = c / k;
    Forward(*train_plan_, c, batch.images.data() + static_cast<size_t>(r * n * S * S * 3), n, true);
    AssemblePredictions(c, n, last_pred_.data() + static_cast<size_t>(r * n * A * net_.pred_width()));
    ComputeLoss(c, n, batch);
    ScatterLossGradient(c, n);
    Backward(*train_plan_, c, n);
    return Status::Ok();
  }));
  PODBENCH_RETURN_IF_ERROR(comms_->error);
  PODBENCH_RETURN_IF_ERROR(dp_->SumGradients());
  std::vector<double> losses(static_cast<size_t>(cores_), 0.0);
  for (int c = dp_->local_cores().begin; c < dp_->local_cores().end; ++c) {
    losses[static_cast<size_t>(c)] = core_[static_cast<size_t>(c)]->loss;
  }
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(losses));
  double loss = 0;
  for (double l : losses) loss += l;
  return loss / static_cast<double>(cfg_.global_batch);
}

void FunctionalSsd::Update(const SgdStep& st) {
  const float* g = gradient();
  for (const Op& op : net_.ops) {
    if (op.param < 0) continue;
    float* w = params_.data() + op.param;
    float* v = momentum_.data() + op.param;
    const float* gw = g + op.param;
    if (op.kind == OpKind::kConv) {
      const TensorShape& x = net_.tensors[static_cast<size_t>(op.in)];
      const TensorShape& y = net_.tensors[static_cast<size_t>(op.out)];
      const int64_t nw = int64_t{op.kernel} * op.kernel * x.c * y.c;
      kernels::SgdMomentumUpdate(w, gw, v, nw, st.lr, st.momentum, st.weight_decay);
      if (op.bias) kernels::SgdMomentumUpdate(w + nw, gw + nw, v + nw, y.c, st.lr, st.momentum, 0.f);
    } else {
      kernels::SgdMomentumUpdate(w, gw, v, op.params, st.lr, st.momentum, 0.f);
    }
  }
}

Result<std::vector<float>> FunctionalSsd::Predict(const float* images, int64_t n, int64_t chunk) {
  if (n < 0 || chunk < 1) return Status::InvalidArgument("ssd functional: Predict needs n >= 0 and chunk >= 1");
  const int64_t A = net_.anchors.NumAnchors(), P = net_.pred_width(), S = cfg_.net.image_size;
  std::vector<float> out(static_cast<size_t>(n * A * P));
  const int64_t chunks = (n + chunk - 1) / chunk;
  const Plan& plan = *eval_plan_;
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore([&](int c) {
    Core& core = *core_[static_cast<size_t>(c)];
    for (int64_t q = c; q < chunks; q += cores_) {
      const int64_t begin = q * chunk, m = std::min(chunk, n - begin);
      Forward(plan, c, images + static_cast<size_t>(begin * S * S * 3), m, false);
      for (size_t l = 0; l < plan.levels.size(); ++l) {
        const int t = plan.levels[l];
        MapLevel(net_.anchors, static_cast<int>(l), static_cast<int>(P), plan.Rows(t, 0), m,
                 core.eval_act[static_cast<size_t>(t)].data(), out.data() + static_cast<size_t>(begin * A * P), false);
      }
    }
    return Status::Ok();
  }));
  if (dp_->ranks().size() > 1) {
    // Every rank's chunks: per core, its chunks' outputs in order.
    const size_t per_image = static_cast<size_t>(A * P);
    std::vector<std::string> per_core(static_cast<size_t>(cores_));
    for (int64_t q = 0; q < chunks; ++q) {
      const int c = static_cast<int>(q % cores_);
      if (!dp_->IsLocal(c)) continue;
      const int64_t begin = q * chunk, m = std::min(chunk, n - begin);
      per_core[static_cast<size_t>(c)].append(reinterpret_cast<const char*>(out.data() + static_cast<size_t>(begin) * per_image),
                                              static_cast<size_t>(m) * per_image * sizeof(float));
    }
    PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreBytes(per_core));
    std::vector<size_t> pos(static_cast<size_t>(cores_), 0);
    for (int64_t q = 0; q < chunks; ++q) {
      const int c = static_cast<int>(q % cores_);
      const int64_t begin = q * chunk, m = std::min(chunk, n - begin);
      const size_t bytes = static_cast<size_t>(m) * per_image * sizeof(float);
      const std::string& s = per_core[static_cast<size_t>(c)];
      if (pos[static_cast<size_t>(c)] + bytes > s.size()) {
        return Status::Internal("ssd functional: core " + std::to_string(c) + "'s predictions are short");
      }
      if (!dp_->IsLocal(c)) std::memcpy(out.data() + static_cast<size_t>(begin) * per_image, s.data() + pos[static_cast<size_t>(c)], bytes);
      pos[static_cast<size_t>(c)] += bytes;
    }
  }
  return out;
}

bool FunctionalSsd::IsLocalTrainRow(int64_t row) const {
  return dp_->IsLocalReplicaRow(row, cfg_.global_batch, cfg_.partitions);
}

bool FunctionalSsd::IsLocalEvalImage(int64_t i, int64_t chunk) const {
  return dp_->IsLocal(static_cast<int>((i / chunk) % cores_));
}

std::vector<float> FunctionalSsd::MovingAverages(int c) const {
  const Core& core = *core_[static_cast<size_t>(c)];
  std::vector<float> v = core.running_mean;
  v.insert(v.end(), core.running_var.begin(), core.running_var.end());
  return v;
}

}  // namespace podbench::ssd
