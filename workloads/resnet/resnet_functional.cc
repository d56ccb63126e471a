#include "workloads/resnet/resnet_functional.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <random>

#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/pooling.h"
#include "kernels/ops/softmax_xent.h"
#include "topology/system.h"

namespace podbench::resnet {

using kernels::Conv2dShape;

// One layer of the layer list as an operation on numbered tensors (tensor 0
// is the input image). param/bn offsets are -1 when unused.
struct FunctionalResNet::Op {
  Layer layer;
  int in0 = 0, in1 = -1, out = -1;
  int64_t param = -1;  // conv/dense weights; BN gamma (beta follows); dense bias follows weights
  int64_t bn = -1;     // offset of this BN's channels in the per-core BN statistics
  bool weight = false;
  // bf16 activations (precision kBf16; FunctionalConfig): a ReLU writes its
  // output, and a batch norm whose input only a convolution reads writes its
  // input gradient, as bf16 values; a convolution whose input (x) or output
  // gradient (dy) holds them says so (kernels::Values::kBf16), and does not
  // round it again.
  bool bf16_out = false;
  bool x_bf16 = false, dy_bf16 = false;
};

struct FunctionalResNet::Core {
  std::vector<std::vector<float>> act, grad;
  std::vector<float> scratch;
  std::vector<float> mean, inv_std, running_mean, running_var;
  std::vector<int32_t> labels;
  int64_t n = 0;  // images the activations are sized for
  double loss = 0;
  Status status;
  class Reducer;
  std::unique_ptr<kernels::BatchNormStatsReducer> reducer;
};

class FunctionalResNet::Core::Reducer : public kernels::BatchNormStatsReducer {
 public:
  Reducer(FunctionalResNet* net, int core) : net_(net), core_(core) {}
  void AllReduceSum(std::span<double> partials) override {
    Status s = net_->ReduceBn(core_, op, partials.data(), static_cast<int64_t>(partials.size()));
    if (!s.ok() && net_->cores_[static_cast<size_t>(core_)]->status.ok()) {
      net_->cores_[static_cast<size_t>(core_)]->status = s;
    }
  }
  int op = 0;

 private:
  FunctionalResNet* net_;
  int core_;
};

FunctionalResNet::~FunctionalResNet() = default;

// Which tensors hold bf16 values, forward (the images, rounded as they are
// copied in; ReLU outputs; max pools of such tensors) and backward (the input
// gradient of a batch norm that is its input's only reader and follows a
// convolution), and so which convolution operands need no rounding.
void FunctionalResNet::MarkBf16Activations() {
  std::vector<int> readers(tensor_elems_.size(), 0), producer(tensor_elems_.size(), -1);
  std::vector<char> bf16(tensor_elems_.size(), 0);
  bf16[0] = 1;
  for (size_t i = 0; i < ops_.size(); ++i) {
    Op& op = ops_[i];
    ++readers[static_cast<size_t>(op.in0)];
    if (op.in1 >= 0) ++readers[static_cast<size_t>(op.in1)];
    if (op.out < 0) continue;
    producer[static_cast<size_t>(op.out)] = static_cast<int>(i);
    if (op.layer.kind == LayerKind::kRelu) op.bf16_out = true;
    bf16[static_cast<size_t>(op.out)] =
        op.layer.kind == LayerKind::kRelu || (op.layer.kind == LayerKind::kMaxPool && bf16[static_cast<size_t>(op.in0)]);
  }
  for (Op& op : ops_) {
    if (op.layer.kind != LayerKind::kBatchNorm) continue;
    const int from = producer[static_cast<size_t>(op.in0)];
    op.bf16_out = readers[static_cast<size_t>(op.in0)] == 1 && from >= 0 &&
                  ops_[static_cast<size_t>(from)].layer.kind == LayerKind::kConv;
    // That convolution's dy (its output's gradient) is what this batch norm writes.
    if (op.bf16_out) ops_[static_cast<size_t>(from)].dy_bf16 = true;
  }
  for (Op& op : ops_) {
    if (op.layer.kind == LayerKind::kConv) op.x_bf16 = bf16[static_cast<size_t>(op.in0)] != 0;
  }
}

Result<std::unique_ptr<FunctionalResNet>> FunctionalResNet::Create(const FunctionalConfig& config) {
  std::unique_ptr<FunctionalResNet> net(new FunctionalResNet());
  PODBENCH_RETURN_IF_ERROR(net->Setup(config));
  return net;
}

namespace {
bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
kernels::Values Bf16If(bool bf16) { return bf16 ? kernels::Values::kBf16 : kernels::Values::kF32; }
kernels::Pool2dShape PoolShape(const Layer& l, int64_t n) {
  kernels::Pool2dShape s;
  s.n = n;
  s.h = l.in_h;
  s.w = l.in_w;
  s.c = l.in_c;
  s.kh = s.kw = l.kernel;
  s.stride = l.stride;
  s.pad = l.pad;
  return s;
}
}  // namespace

Status FunctionalResNet::Setup(const FunctionalConfig& config) {
  cfg_ = config;
  PODBENCH_RETURN_IF_ERROR(cfg_.net.Validate());
  if (cfg_.cores < 1) return Status::InvalidArgument("functional resnet: cores must be >= 1");
  if (cfg_.global_batch < cfg_.cores || cfg_.global_batch % cfg_.cores != 0) {
    return Status::InvalidArgument("functional resnet: global_batch " + std::to_string(cfg_.global_batch) +
                                   " must be a positive multiple of the " + std::to_string(cfg_.cores) + " cores");
  }
  if (cfg_.bn_group < 1 || cfg_.cores % cfg_.bn_group != 0) {
    return Status::InvalidArgument("functional resnet: bn_group " + std::to_string(cfg_.bn_group) +
                                   " must divide the " + std::to_string(cfg_.cores) + " cores");
  }
  layers_ = BuildResNet(cfg_.net);
  tensor_elems_ = {int64_t{cfg_.net.image_size} * cfg_.net.image_size * 3};
  int cur = 0, block_in = 0, main_out = -1;
  bool had_shortcut = false;
  int64_t nparams = 0, nbn = 0;
  for (const Layer& l : layers_) {
    Op op;
    op.layer = l;
    op.in0 = cur;
    const bool in_block = l.name.find(".block") != std::string::npos;
    if (in_block && EndsWith(l.name, ".conv1")) {
      block_in = cur;
      had_shortcut = false;
    }
    if (EndsWith(l.name, "shortcut.conv")) {
      main_out = cur;
      op.in0 = block_in;
      had_shortcut = true;
    }
    if (l.kind == LayerKind::kAdd) {
      if (had_shortcut) {
        op.in0 = main_out;
        op.in1 = cur;
      } else {
        op.in0 = cur;
        op.in1 = block_in;
      }
    }
    if (l.kind == LayerKind::kConv || l.kind == LayerKind::kDense || l.kind == LayerKind::kBatchNorm) {
      op.param = nparams;
      nparams += l.params();
      op.weight = l.kind != LayerKind::kBatchNorm;
    }
    if (l.kind == LayerKind::kBatchNorm) {
      op.bn = nbn;
      nbn += l.out_c;
    }
    if (l.kind != LayerKind::kSoftmaxXent) {
      op.out = static_cast<int>(tensor_elems_.size());
      tensor_elems_.push_back(l.out_elems());
      cur = op.out;
    }
    ops_.push_back(op);
  }
  if (cfg_.precision == kernels::Precision::kBf16) MarkBf16Activations();

  // The slice, its cores' threads and gradients, the weights.
  functional::DataParallelConfig dc;
  dc.cores = cfg_.cores;
  dc.slice = cfg_.slice;
  dc.system = cfg_.system;
  dc.allreduce = cfg_.allreduce;
  dc.weight_update_sharding = cfg_.weight_update_sharding;
  dc.reduce_scatter = cfg_.reduce_scatter;
  dc.all_gather = cfg_.all_gather;
  dc.ranks = cfg_.ranks;
  PODBENCH_ASSIGN_OR_RETURN(dp_, functional::DataParallel::Create(dc, nparams));
  const topology::CoreBlock local = dp_->local_cores();
  if (cfg_.cores > 1) {
    if (cfg_.bn_group == cfg_.cores) {
      bn_groups_ = dp_->whole_slice();
    } else if (cfg_.bn_group > 1) {
      PODBENCH_ASSIGN_OR_RETURN(bn_groups_, topology::LogicalTopology::ReplicaGroups(dp_->slice(), 1, cfg_.bn_group));
    }
  }

  // Initial weights: He normal convolutions, N(0, 0.01) dense, BN gamma 1
  // (0 on the last BN of each residual branch), beta 0.
  std::vector<float> init(static_cast<size_t>(nparams), 0.f);
  momentum_.assign(init.size(), 0.f);
  std::mt19937_64 rng(cfg_.seed);
  for (const Op& op : ops_) {
    const Layer& l = op.layer;
    float* p = init.data() + op.param;
    if (l.kind == LayerKind::kConv) {
      std::normal_distribution<float> d(0.f, std::sqrt(2.f / static_cast<float>(l.kernel * l.kernel * l.in_c)));
      for (int64_t i = 0; i < l.params(); ++i) p[i] = d(rng);
    } else if (l.kind == LayerKind::kDense) {
      std::normal_distribution<float> d(0.f, 0.01f);
      for (int64_t i = 0; i < int64_t{l.in_c} * l.out_c; ++i) p[i] = d(rng);
    } else if (l.kind == LayerKind::kBatchNorm) {
      const float g = EndsWith(l.name, ".bn3") ? 0.f : 1.f;
      std::fill(p, p + l.out_c, g);
    }
  }

  dp_->SetWeights(init);
  if (dp_->sharded()) {
    params_ = std::move(init);
    weights_ = &params_;
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i].weight) lars_ops_.push_back(static_cast<int>(i));
    }
    norms_ = std::make_unique<topology::CoreBuffers>(topology::DType::kF32, 2 * lars_ops_.size(), local.begin,
                                                     local.end);
  } else {
    weights_ = &dp_->shared_weights();
  }
  bn_bufs_.resize(ops_.size());
  if (bn_groups_) {
    for (size_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i].layer.kind == LayerKind::kBatchNorm) {
        bn_bufs_[i] = std::make_unique<topology::CoreBuffers>(
            topology::DType::kF32, static_cast<uint64_t>(2 * ops_[i].layer.out_c + 1), local.begin, local.end);
      }
    }
  }
  cores_.resize(static_cast<size_t>(cfg_.cores));  // this process's cores only
  for (int c = local.begin; c < local.end; ++c) {
    auto core = std::make_unique<Core>();
    core->running_mean.assign(static_cast<size_t>(nbn), 0.f);
    core->running_var.assign(static_cast<size_t>(nbn), 1.f);
    core->mean.assign(static_cast<size_t>(nbn), 0.f);
    core->inv_std.assign(static_cast<size_t>(nbn), 1.f);
    core->act.resize(tensor_elems_.size());
    core->grad.resize(tensor_elems_.size());
    if (bn_groups_) core->reducer = std::make_unique<Core::Reducer>(this, c);
    cores_[static_cast<size_t>(c)] = std::move(core);
  }
  return Status::Ok();
}

const float* FunctionalResNet::gradient() const { return dp_->summed_gradient(dp_->local_cores().begin); }

bool FunctionalResNet::IsLocalTrainRow(int64_t row) const {
  return dp_->IsLocal(static_cast<int>(row / (cfg_.global_batch / cfg_.cores)));
}

bool FunctionalResNet::IsLocalEvalImage(int64_t i, int64_t chunk) const {
  return dp_->IsLocal(static_cast<int>((i / chunk) % cfg_.cores));
}

std::pair<int64_t, int64_t> FunctionalResNet::shard(int core) const {
  if (!dp_->sharded()) return {0, num_parameters()};
  return dp_->shard(core);
}

const float* FunctionalResNet::replica_parameters(int core) const {
  return dp_->sharded() ? dp_->weights(core) : nullptr;
}

Status FunctionalResNet::ReduceBn(int core, int op, double* partials, int64_t len) {
  auto& buf = *bn_bufs_[static_cast<size_t>(op)];
  float* mine = reinterpret_cast<float*>(buf.Data(core));
  for (int64_t i = 0; i < len; ++i) mine[i] = static_cast<float>(partials[i]);
  Status s = dp_->CollectiveInStep(core, "ring", *bn_groups_, buf);
  for (int64_t i = 0; i < len; ++i) partials[i] = mine[i];
  return s;
}

Status FunctionalResNet::Forward(int c, const float* images, const int32_t* labels, int64_t n, bool training,
                                 double* loss, int32_t* predictions) {
  Core& core = *cores_[static_cast<size_t>(c)];
  const int th = cfg_.threads_per_core;
  if (core.n != n) {
    for (size_t t = 0; t < tensor_elems_.size(); ++t) {
      core.act[t].resize(static_cast<size_t>(n * tensor_elems_[t]));
      if (training) core.grad[t].resize(core.act[t].size());
    }
    int64_t most = *std::max_element(tensor_elems_.begin(), tensor_elems_.end());
    core.scratch.resize(static_cast<size_t>(n * most));
    core.n = n;
  }
  if (training && core.grad[1].size() != core.act[1].size()) {
    for (size_t t = 0; t < tensor_elems_.size(); ++t) core.grad[t].resize(core.act[t].size());
  }
  if (cfg_.precision == kernels::Precision::kBf16) {
    // bf16 activations start with the images (Google's v0.6 input pipeline casts them on the host).
    kernels::RoundToBf16(images, core.act[0].data(), static_cast<long>(n * tensor_elems_[0]));
  } else {
    std::memcpy(core.act[0].data(), images, static_cast<size_t>(n * tensor_elems_[0]) * sizeof(float));
  }
  for (size_t i = 0; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    const Layer& l = op.layer;
    const float* x = core.act[static_cast<size_t>(op.in0)].data();
    float* y = op.out >= 0 ? core.act[static_cast<size_t>(op.out)].data() : nullptr;
    const float* p = weights_->data() + op.param;
    switch (l.kind) {
      case LayerKind::kConv:
        kernels::Conv2dForward(ConvShapeOf(l, n), x, Filter(op), y, cfg_.precision, th, Bf16If(op.x_bf16),
                               FilterValues());
        break;
      case LayerKind::kBatchNorm: {
        const int64_t rows = n * l.out_h * l.out_w;
        if (training) {
          kernels::BatchNormStatsReducer* r = nullptr;
          if (core.reducer) {
            static_cast<Core::Reducer*>(core.reducer.get())->op = static_cast<int>(i);
            r = core.reducer.get();
          }
          kernels::BatchNormForwardTraining(x, rows, l.out_c, p, p + l.out_c, {}, y, core.mean.data() + op.bn,
                                            core.inv_std.data() + op.bn, core.running_mean.data() + op.bn,
                                            core.running_var.data() + op.bn, r);
        } else {
          kernels::BatchNormForwardInference(x, rows, l.out_c, p, p + l.out_c, core.running_mean.data() + op.bn,
                                             core.running_var.data() + op.bn, 1e-5f, y);
        }
        break;
      }
      case LayerKind::kRelu:
        kernels::Relu(x, y, n * l.out_elems(), Bf16If(op.bf16_out));
        break;
      case LayerKind::kMaxPool:
        kernels::MaxPoolForward(PoolShape(l, n), x, y);
        break;
      case LayerKind::kAvgPool:
        kernels::GlobalAvgPoolForward(x, n, int64_t{l.in_h} * l.in_w, l.in_c, y);
        break;
      case LayerKind::kAdd:
        kernels::Add(x, core.act[static_cast<size_t>(op.in1)].data(), y, n * l.out_elems());
        break;
      case LayerKind::kDense: {
        Conv2dShape s;
        s.n = n;
        s.c = l.in_c;
        s.oc = l.out_c;
        kernels::Conv2dForward(s, x, Filter(op), y, cfg_.precision, th, kernels::Values::kF32, FilterValues());
        kernels::AddBias(p + int64_t{l.in_c} * l.out_c, y, n, l.out_c);
        break;
      }
      case LayerKind::kSoftmaxXent: {
        const int64_t k = l.in_c;
        if (predictions) {
          for (int64_t r = 0; r < n; ++r) {
            const float* row = x + r * k;
            predictions[r] = static_cast<int32_t>(std::max_element(row, row + k) - row);
          }
        }
        if (training) {
          float* dlogits = core.grad[static_cast<size_t>(op.in0)].data();
          *loss = kernels::SoftmaxCrossEntropy(x, labels, n, k, cfg_.label_smoothing, dlogits);
          // The loss is the mean over the global batch.
          kernels::Scale(1.f / static_cast<float>(cfg_.cores), dlogits, dlogits, n * k);
        }
        break;
      }
    }
  }
  return core.status;
}

void FunctionalResNet::Backward(int c, int64_t n) {
  Core& core = *cores_[static_cast<size_t>(c)];
  const int th = cfg_.threads_per_core;
  float* g = dp_->gradient(c);
  // The logits' gradient was written by the loss; every other tensor's
  // gradient is the sum over its consumers, in reverse op order: the first
  // consumer writes it, later ones add to it (no zeroing pass, no extra copy).
  const int logits = ops_.back().in0;
  std::vector<char> written(core.grad.size(), 0);
  written[static_cast<size_t>(logits)] = 1;
  float* scratch = core.scratch.data();
  for (size_t i = ops_.size(); i-- > 0;) {
    const Op& op = ops_[i];
    const Layer& l = op.layer;
    if (l.kind == LayerKind::kSoftmaxXent) continue;
    const float* x = core.act[static_cast<size_t>(op.in0)].data();
    std::vector<float>& out_grad = core.grad[static_cast<size_t>(op.out)];
    if (!written[static_cast<size_t>(op.out)]) {  // an output nothing consumed
      std::fill(out_grad.begin(), out_grad.end(), 0.f);
      written[static_cast<size_t>(op.out)] = 1;
    }
    const float* dy = out_grad.data();
    float* dxin = core.grad[static_cast<size_t>(op.in0)].data();
    const int64_t in_n = n * l.in_elems();
    const float* p = weights_->data() + op.param;
    // dx: this op's input gradient, straight into dxin when it is the first to write it.
    const bool first = !written[static_cast<size_t>(op.in0)];
    float* dx = first ? dxin : scratch;
    bool produced = true;
    switch (l.kind) {
      case LayerKind::kConv: {
        Conv2dShape s = ConvShapeOf(l, n);
        kernels::Conv2dBackwardFilter(s, x, dy, g + op.param, cfg_.precision, th, Bf16If(op.x_bf16 && op.dy_bf16));
        if (op.in0 == 0) {
          produced = false;
        } else {
          kernels::Conv2dBackwardData(s, dy, Filter(op), dx, cfg_.precision, th, Bf16If(op.dy_bf16), FilterValues());
        }
        break;
      }
      case LayerKind::kDense: {
        Conv2dShape s;
        s.n = n;
        s.c = l.in_c;
        s.oc = l.out_c;
        kernels::Conv2dBackwardFilter(s, x, dy, g + op.param, cfg_.precision, th);
        kernels::BiasGrad(dy, g + op.param + int64_t{l.in_c} * l.out_c, n, l.out_c);
        kernels::Conv2dBackwardData(s, dy, Filter(op), dx, cfg_.precision, th, kernels::Values::kF32, FilterValues());
        break;
      }
      case LayerKind::kBatchNorm: {
        kernels::BatchNormStatsReducer* r = nullptr;
        if (core.reducer) {
          static_cast<Core::Reducer*>(core.reducer.get())->op = static_cast<int>(i);
          r = core.reducer.get();
        }
        float* dgamma = g + op.param;
        kernels::BatchNormBackward(x, dy, n * l.out_h * l.out_w, l.out_c, p, core.mean.data() + op.bn,
                                   core.inv_std.data() + op.bn, dx, dgamma, dgamma + l.out_c, r, Bf16If(op.bf16_out));
        // Group totals: each member contributes its share to the global sum.
        if (r != nullptr) {
          kernels::Scale(1.f / static_cast<float>(cfg_.bn_group), dgamma, dgamma, 2 * int64_t{l.out_c});
        }
        break;
      }
      case LayerKind::kRelu:
        kernels::ReluGrad(x, dy, dx, in_n);
        break;
      case LayerKind::kMaxPool:
        kernels::MaxPoolBackward(PoolShape(l, n), x, dy, dx);
        break;
      case LayerKind::kAvgPool:
        kernels::GlobalAvgPoolBackward(dy, n, int64_t{l.in_h} * l.in_w, l.in_c, dx);
        break;
      case LayerKind::kAdd: {
        // Both inputs receive dy.
        produced = false;
        for (int t : {op.in0, op.in1}) {
          float* d = core.grad[static_cast<size_t>(t)].data();
          if (written[static_cast<size_t>(t)]) {
            kernels::Axpy(1.f, dy, d, in_n);
          } else {
            std::memcpy(d, dy, static_cast<size_t>(in_n) * sizeof(float));
            written[static_cast<size_t>(t)] = 1;
          }
        }
        break;
      }
      case LayerKind::kSoftmaxXent:
        break;
    }
    if (!produced) continue;
    if (first) {
      written[static_cast<size_t>(op.in0)] = 1;
    } else {
      kernels::Axpy(1.f, dx, dxin, in_n);
    }
  }
}

void FunctionalResNet::RoundWeights() {
  if (cfg_.precision != kernels::Precision::kBf16) return;
  weights_bf16_.resize(weights_->size());
  for (const Op& op : ops_) {
    const Layer& l = op.layer;
    const int64_t nw = l.kind == LayerKind::kConv ? l.params() : l.kind == LayerKind::kDense ? int64_t{l.in_c} * l.out_c : 0;
    if (nw > 0) kernels::RoundToBf16(weights_->data() + op.param, weights_bf16_.data() + op.param, static_cast<long>(nw));
  }
}

const float* FunctionalResNet::Filter(const Op& op) const {
  return (cfg_.precision == kernels::Precision::kBf16 ? weights_bf16_.data() : weights_->data()) + op.param;
}

kernels::Values FunctionalResNet::FilterValues() const {
  return cfg_.precision == kernels::Precision::kBf16 ? kernels::Values::kBf16 : kernels::Values::kF32;
}

Result<double> FunctionalResNet::ComputeGradients(const float* images, const int32_t* labels) {
  RoundWeights();
  const int64_t b = cfg_.global_batch / cfg_.cores;
  const int64_t img = tensor_elems_[0];
  auto work = [&](int c) {
    Core& core = *cores_[static_cast<size_t>(c)];
    core.status = Status::Ok();
    core.labels.assign(labels + c * b, labels + (c + 1) * b);
    // A failed collective is recorded and the core finishes the step, as
    // the others wait for it at every collective.
    Status s = Forward(c, images + c * b * img, core.labels.data(), b, true, &core.loss, nullptr);
    Backward(c, b);
    if (!s.ok() && core.status.ok()) core.status = s;
    return core.status;
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(dp_->SumGradients());
  // Every rank's cores' losses, summed in core order.
  std::vector<double> losses(static_cast<size_t>(cfg_.cores), 0.0);
  for (int c = dp_->local_cores().begin; c < dp_->local_cores().end; ++c) {
    losses[static_cast<size_t>(c)] = cores_[static_cast<size_t>(c)]->loss;
  }
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(losses));
  double loss = 0;
  for (double l : losses) loss += l;
  return loss / cfg_.cores;
}

namespace {
// The parameters of `op` that fall in [begin, end), as [lo, hi) (lo >= hi: none).
std::pair<int64_t, int64_t> Clip(int64_t first, int64_t count, int64_t begin, int64_t end) {
  return {std::max(first, begin), std::min(first + count, end)};
}
}  // namespace

// Updates the parameters [lo, hi) of `op` with `st`, given the op's LARS
// trust ratio (unused by SGD). The one place both the replicated and the
// sharded update take their arithmetic from.
void FunctionalResNet::UpdateRange(const Op& op, const OptimizerStep& st, float trust, float* w, const float* g,
                                   float* v, int64_t lo, int64_t hi) const {
  const Layer& l = op.layer;
  const bool lars = st.optimizer == kernels::Optimizer::kLars;
  const float lr_rest = lars ? st.lr / 100 : st.lr;  // batch norm and the dense bias
  const int64_t nw = l.kind == LayerKind::kBatchNorm ? 0
                     : l.kind == LayerKind::kDense   ? int64_t{l.in_c} * l.out_c
                                                     : l.params();
  // Weights [param, param + nw), then the rest (BN scale/shift, dense bias).
  const auto [wlo, whi] = Clip(op.param, nw, lo, hi);
  if (wlo < whi) {
    if (lars) {
      kernels::LarsApply(w + wlo, g + wlo, v + wlo, whi - wlo, st.lr, st.momentum, st.weight_decay, trust);
    } else {
      kernels::SgdMomentumUpdate(w + wlo, g + wlo, v + wlo, whi - wlo, st.lr, st.momentum, st.weight_decay);
    }
  }
  const auto [rlo, rhi] = Clip(op.param + nw, l.params() - nw, lo, hi);
  if (rlo < rhi) kernels::SgdMomentumUpdate(w + rlo, g + rlo, v + rlo, rhi - rlo, lr_rest, st.momentum, 0.f);
}

Status FunctionalResNet::Update(const OptimizerStep& st) {
  if (st.optimizer != kernels::Optimizer::kLars && st.optimizer != kernels::Optimizer::kSgdMomentum) {
    return Status::InvalidArgument("functional resnet: the optimizer must be LARS or momentum SGD");
  }
  const bool lars = st.optimizer == kernels::Optimizer::kLars;
  const bool sharded = dp_->sharded();
  if (lars && sharded) {
    // Each core: partial squared norms of its part of every LARS layer,
    // then the whole-layer norms on every core.
    PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore([&](int c) {
      const auto [begin, end] = dp_->shard(c);
      const float* w = dp_->weights(c);
      const float* g = dp_->summed_gradient(c);
      float* out = reinterpret_cast<float*>(norms_->Data(c));
      for (size_t k = 0; k < lars_ops_.size(); ++k) {
        const Op& op = ops_[static_cast<size_t>(lars_ops_[k])];
        const Layer& l = op.layer;
        const int64_t nw = l.kind == LayerKind::kDense ? int64_t{l.in_c} * l.out_c : l.params();
        const auto [lo, hi] = Clip(op.param, nw, begin, end);
        double w2 = 0, g2 = 0;
        for (int64_t i = lo; i < hi; ++i) {
          w2 += double(w[i]) * w[i];
          g2 += double(g[i]) * g[i];
        }
        out[2 * k] = static_cast<float>(w2);
        out[2 * k + 1] = static_cast<float>(g2);
      }
      return Status::Ok();
    }));
    PODBENCH_RETURN_IF_ERROR(dp_->AllReduce(*norms_));
  }
  // Each core updates its shard of its replica (sharded), or one update of
  // the shared copy; then every replica gets every shard.
  PODBENCH_RETURN_IF_ERROR(dp_->ApplyUpdate([&](int c, int64_t begin, int64_t end, float* w, const float* g) {
    const float* norms = sharded && lars ? reinterpret_cast<const float*>(norms_->Data(c)) : nullptr;
    size_t k = 0;
    for (const Op& op : ops_) {
      if (op.param < 0) continue;
      const Layer& l = op.layer;
      float trust = 1.f;
      if (op.weight) {
        if (norms) {
          trust = kernels::LarsTrustRatio(std::sqrt(static_cast<double>(norms[2 * k])),
                                          std::sqrt(static_cast<double>(norms[2 * k + 1])), st.weight_decay,
                                          st.eta, st.epsilon);
        } else if (lars) {  // the whole layer is here
          const int64_t nw = l.kind == LayerKind::kDense ? int64_t{l.in_c} * l.out_c : l.params();
          double w2 = 0, g2 = 0;
          for (int64_t i = op.param; i < op.param + nw; ++i) {
            w2 += double(w[i]) * w[i];
            g2 += double(g[i]) * g[i];
          }
          trust = kernels::LarsTrustRatio(std::sqrt(w2), std::sqrt(g2), st.weight_decay, st.eta, st.epsilon);
        }
        ++k;
      }
      UpdateRange(op, st, trust, w, g, momentum_.data(), begin, end);
    }
  }));
  // The forward pass reads this process's first replica (all are equal after the all-gather).
  if (sharded) std::memcpy(params_.data(), dp_->weights(dp_->local_cores().begin), params_.size() * sizeof(float));
  return Status::Ok();
}

Result<int64_t> FunctionalResNet::CountCorrect(const float* images, const int32_t* labels, int64_t n,
                                               int64_t chunk) {
  RoundWeights();
  const int64_t img = tensor_elems_[0];
  const int64_t chunks = (n + chunk - 1) / chunk;
  // Per core; counts are exact in a double (for ShareCoreValues).
  std::vector<double> correct(static_cast<size_t>(cfg_.cores), 0.0);
  auto work = [&](int c) -> Status {
    std::vector<int32_t> pred(static_cast<size_t>(chunk));
    for (int64_t k = c; k < chunks; k += cfg_.cores) {
      const int64_t begin = k * chunk, m = std::min(chunk, n - begin);
      Status s = Forward(c, images + begin * img, nullptr, m, false, nullptr, pred.data());
      if (!s.ok()) return s;
      for (int64_t r = 0; r < m; ++r) {
        correct[static_cast<size_t>(c)] += pred[static_cast<size_t>(r)] == labels[begin + r] ? 1 : 0;
      }
    }
    return Status::Ok();
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(correct));
  int64_t total = 0;
  for (double k : correct) total += static_cast<int64_t>(k);
  return total;
}

}  // namespace podbench::resnet
