#include "workloads/minigo/minigo_network.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/conv/conv2d.h"
#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/matmul.h"
#include "workloads/minigo/go/random.h"

namespace podbench::minigo {

using kernels::Conv2dShape;
using kernels::Precision;

namespace {
constexpr int64_t kPolicyConv = 2;  // minigo-v0.6.md §Network "Policy head": 1x1 conv to 2
constexpr int64_t kValueConv = 1;   // §Network "Value head": 1x1 conv to 1
}  // namespace

Status NetworkConfig::Validate() const {
  auto bad = [](const std::string& field, double v, const char* want) {
    return Status::InvalidArgument("minigo network " + field + " = " + std::to_string(v) + ": must be " + want);
  };
  if (conv_width < 1) return bad("conv_width", conv_width, ">= 1");
  if (trunk_layers < 0) return bad("trunk_layers", trunk_layers, ">= 0");
  if (fc_width < 1) return bad("fc_width", fc_width, ">= 1");
  if (!(value_cost_weight >= 0)) return bad("value_cost_weight", value_cost_weight, ">= 0");
  if (!(l2_strength >= 0)) return bad("l2_strength", l2_strength, ">= 0");
  if (!(bn_momentum >= 0 && bn_momentum <= 1)) return bad("bn_momentum", bn_momentum, "in [0, 1]");
  if (!(bn_epsilon > 0)) return bad("bn_epsilon", bn_epsilon, "> 0");
  return Status::Ok();
}

// Offsets into the flat parameters and BN statistics.
struct Network::Layout {
  int64_t C = 0, F = 0;
  int convs = 0;  // trunk convolutions: 1 + 2 * trunk_layers
  struct Bn {
    int64_t gamma = -1, beta = -1;  // -1: no scale / centre (the heads')
    int64_t stats = 0, c = 0;        // running mean at stats, variance at stats + c
  };
  std::vector<int64_t> conv_w;  // per trunk conv
  std::vector<Bn> conv_bn;
  int64_t pol_conv = 0, pol_fc_w = 0, pol_fc_b = 0;
  int64_t val_conv = 0, val_fc1_w = 0, val_fc1_b = 0, val_fc2_w = 0, val_fc2_b = 0;
  Bn pol_bn, val_bn;
  int64_t params = 0, stats = 0;
};

// Activations and gradients of the last forward pass, sized for `n`.
struct Network::Work {
  int64_t n = 0;
  std::vector<std::vector<float>> Y, H, dH;  // per trunk conv: conv output, activation, its gradient
  std::vector<std::vector<float>> mean, inv_std;  // per trunk conv's BN
  std::vector<float> z, dz;                       // a BN output / scratch
  std::vector<float> pc, pr, logits, probs;       // policy head
  std::vector<float> pmean, pinv;
  std::vector<float> vc, vr, f1, vout, v;         // value head
  std::vector<float> vmean, vinv;
  std::vector<float> ones, zeros, run_scratch;    // unit scale / zero centre; throwaway running stats
  const float* pi = nullptr;
  const float* target = nullptr;
  void Size(const Layout& L, int64_t batch) {
    if (batch <= n) return;
    n = batch;
    const size_t t = static_cast<size_t>(batch * kNumPoints * L.C);
    for (auto* list : {&Y, &H, &dH}) {
      list->resize(static_cast<size_t>(L.convs));
      for (auto& x : *list) x.assign(t, 0.f);
    }
    z.assign(t, 0.f);
    dz.assign(t, 0.f);
    const size_t p = static_cast<size_t>(batch * kNumPoints * kPolicyConv);
    pc.assign(p, 0.f);
    pr.assign(p, 0.f);
    logits.assign(static_cast<size_t>(batch * kNumMoves), 0.f);
    probs.assign(logits.size(), 0.f);
    const size_t q = static_cast<size_t>(batch * kNumPoints * kValueConv);
    vc.assign(q, 0.f);
    vr.assign(q, 0.f);
    f1.assign(static_cast<size_t>(batch * L.F), 0.f);
    vout.assign(static_cast<size_t>(batch), 0.f);
    v.assign(static_cast<size_t>(batch), 0.f);
  }
};

Network::~Network() = default;

Result<std::unique_ptr<Network>> Network::Create(const NetworkConfig& config, uint64_t seed) {
  PODBENCH_RETURN_IF_ERROR(config.Validate());
  std::unique_ptr<Network> net(new Network());
  net->cfg_ = config;
  net->layout_ = std::make_unique<Layout>();
  net->work_ = std::make_unique<Work>();
  Layout& L = *net->layout_;
  L.C = config.conv_width;
  L.F = config.fc_width;
  L.convs = 1 + 2 * config.trunk_layers;
  int64_t p = 0, s = 0;
  auto bn = [&](int64_t c, bool affine) {
    Layout::Bn b;
    b.c = c;
    if (affine) {
      b.gamma = p;
      b.beta = p + c;
      p += 2 * c;
    }
    b.stats = s;
    s += 2 * c;
    return b;
  };
  for (int k = 0; k < L.convs; ++k) {
    L.conv_w.push_back(p);
    p += 9 * (k == 0 ? kNumPlanes : L.C) * L.C;
    L.conv_bn.push_back(bn(L.C, true));
  }
  L.pol_conv = p;
  p += L.C * kPolicyConv;
  L.pol_bn = bn(kPolicyConv, false);
  L.pol_fc_w = p;
  p += kNumPoints * kPolicyConv * kNumMoves;
  L.pol_fc_b = p;
  p += kNumMoves;
  L.val_conv = p;
  p += L.C * kValueConv;
  L.val_bn = bn(kValueConv, false);
  L.val_fc1_w = p;
  p += kNumPoints * kValueConv * L.F;
  L.val_fc1_b = p;
  p += L.F;
  L.val_fc2_w = p;
  p += L.F;
  L.val_fc2_b = p;
  p += 1;
  L.params = p;
  L.stats = s;

  net->params_.assign(static_cast<size_t>(p), 0.f);
  net->decayed_.assign(static_cast<size_t>(p), 1);
  for (int64_t i = 0; i < kNumMoves; ++i) net->decayed_[static_cast<size_t>(L.pol_fc_b + i)] = 0;
  for (int64_t i = 0; i < L.F; ++i) net->decayed_[static_cast<size_t>(L.val_fc1_b + i)] = 0;
  net->decayed_[static_cast<size_t>(L.val_fc2_b)] = 0;
  net->bn_stats_.assign(static_cast<size_t>(s), 0.f);
  auto set_var = [&](const Layout::Bn& b) {
    for (int64_t c = 0; c < b.c; ++c) net->bn_stats_[static_cast<size_t>(b.stats + b.c + c)] = 1.f;
  };
  Rng rng(seed);
  auto he = [&](int64_t off, int64_t count, int64_t fan_in) {
    const double sd = std::sqrt(2.0 / static_cast<double>(fan_in));
    for (int64_t i = 0; i < count; ++i) net->params_[static_cast<size_t>(off + i)] = static_cast<float>(sd * rng.Normal());
  };
  for (int k = 0; k < L.convs; ++k) {
    const int64_t cin = k == 0 ? kNumPlanes : L.C;
    he(L.conv_w[static_cast<size_t>(k)], 9 * cin * L.C, 9 * cin);
    const Layout::Bn& b = L.conv_bn[static_cast<size_t>(k)];
    for (int64_t c = 0; c < b.c; ++c) net->params_[static_cast<size_t>(b.gamma + c)] = 1.f;
    set_var(b);
  }
  he(L.pol_conv, L.C * kPolicyConv, L.C);
  he(L.pol_fc_w, kNumPoints * kPolicyConv * kNumMoves, kNumPoints * kPolicyConv);
  he(L.val_conv, L.C * kValueConv, L.C);
  he(L.val_fc1_w, kNumPoints * kValueConv * L.F, kNumPoints * kValueConv);
  he(L.val_fc2_w, L.F, L.F);
  set_var(L.pol_bn);
  set_var(L.val_bn);
  const int64_t max_c = std::max<int64_t>(L.C, kPolicyConv);
  net->work_->ones.assign(static_cast<size_t>(max_c), 1.f);
  net->work_->zeros.assign(static_cast<size_t>(max_c), 0.f);
  net->work_->run_scratch.assign(static_cast<size_t>(2 * max_c), 0.f);
  return net;
}

std::unique_ptr<Network> Network::Clone() const {
  auto copy = Create(cfg_, 0);  // cfg_ was validated: cannot fail
  std::unique_ptr<Network> net = std::move(copy).value();
  net->params_ = params_;
  net->bn_stats_ = bn_stats_;
  return net;
}

int64_t Network::MacsPerPosition() const {
  const Layout& L = *layout_;
  int64_t macs = kNumPoints * 9 * kNumPlanes * L.C;
  macs += kNumPoints * 9 * L.C * L.C * (L.convs - 1);
  macs += kNumPoints * L.C * (kPolicyConv + kValueConv);
  macs += kNumPoints * kPolicyConv * kNumMoves + kNumPoints * kValueConv * L.F + L.F;
  return macs;
}

namespace {
Conv2dShape Conv(int64_t n, int64_t c, int64_t oc, int64_t k) {
  Conv2dShape s;
  s.n = n;
  s.h = s.w = kN;
  s.c = c;
  s.oc = oc;
  s.kh = s.kw = k;
  s.stride = 1;
  s.pad = k / 2;
  return s;
}
// C = A B (+ bias rows) with the fp32 GEMM on one thread.
void Dense(int64_t m, int64_t n, int64_t k, const float* a, const float* w, const float* bias, float* c) {
  kernels::MatMul(m, n, k, a, k, false, w, n, false, c, n, false, Precision::kF32, 1);
  kernels::AddBias(bias, c, m, n);
}
}  // namespace

Losses Network::Forward(const float* features, const float* pi, const float* z, int64_t n, bool training,
                        bool update_running, float* policy, float* value) {
  const Layout& L = *layout_;
  Work& w = *work_;
  w.Size(L, n);
  const float* P = params_.data();
  float* S = bn_stats_.data();
  w.mean.resize(static_cast<size_t>(L.convs));
  w.inv_std.resize(static_cast<size_t>(L.convs));
  kernels::BatchNormParams bp;
  bp.epsilon = cfg_.bn_epsilon;
  bp.momentum = cfg_.bn_momentum;
  const int64_t rows = n * kNumPoints;
  // One BN over rows x b.c: training (batch statistics, running ones updated
  // or not) or inference.
  auto batch_norm = [&](const Layout::Bn& b, const float* x, float* y, std::vector<float>* mean,
                        std::vector<float>* inv_std) {
    const float* gamma = b.gamma >= 0 ? P + b.gamma : w.ones.data();
    const float* beta = b.beta >= 0 ? P + b.beta : w.zeros.data();
    float* rm = S + b.stats;
    float* rv = S + b.stats + b.c;
    if (training) {
      mean->resize(static_cast<size_t>(b.c));
      inv_std->resize(static_cast<size_t>(b.c));
      if (!update_running) {
        std::copy(rm, rm + 2 * b.c, w.run_scratch.begin());
        rm = w.run_scratch.data();
        rv = rm + b.c;
      }
      kernels::BatchNormForwardTraining(x, rows, b.c, gamma, beta, bp, y, mean->data(), inv_std->data(), rm, rv);
    } else {
      kernels::BatchNormForwardInference(x, rows, b.c, gamma, beta, rm, rv, cfg_.bn_epsilon, y);
    }
  };
  const int64_t t = rows * L.C;
  for (int k = 0; k < L.convs; ++k) {
    const size_t ks = static_cast<size_t>(k);
    const float* x = k == 0 ? features : w.H[ks - 1].data();
    const int64_t cin = k == 0 ? kNumPlanes : L.C;
    kernels::Conv2dForward(Conv(n, cin, L.C, 3), x, P + L.conv_w[ks], w.Y[ks].data(), Precision::kF32, 1);
    batch_norm(L.conv_bn[ks], w.Y[ks].data(), w.z.data(), &w.mean[ks], &w.inv_std[ks]);
    // The second convolution of a block adds the block's input (H[k - 2]).
    if (k > 0 && k % 2 == 0) kernels::Add(w.z.data(), w.H[ks - 2].data(), w.z.data(), t);
    kernels::Relu(w.z.data(), w.H[ks].data(), t);
  }
  const float* trunk = w.H[static_cast<size_t>(L.convs - 1)].data();
  // Policy head.
  kernels::Conv2dForward(Conv(n, L.C, kPolicyConv, 1), trunk, P + L.pol_conv, w.pc.data(), Precision::kF32, 1);
  batch_norm(L.pol_bn, w.pc.data(), w.z.data(), &w.pmean, &w.pinv);
  kernels::Relu(w.z.data(), w.pr.data(), rows * kPolicyConv);
  Dense(n, kNumMoves, kNumPoints * kPolicyConv, w.pr.data(), P + L.pol_fc_w, P + L.pol_fc_b, w.logits.data());
  // Value head.
  kernels::Conv2dForward(Conv(n, L.C, kValueConv, 1), trunk, P + L.val_conv, w.vc.data(), Precision::kF32, 1);
  batch_norm(L.val_bn, w.vc.data(), w.z.data(), &w.vmean, &w.vinv);
  kernels::Relu(w.z.data(), w.vr.data(), rows * kValueConv);
  Dense(n, L.F, kNumPoints * kValueConv, w.vr.data(), P + L.val_fc1_w, P + L.val_fc1_b, w.f1.data());
  kernels::Relu(w.f1.data(), w.f1.data(), n * L.F);
  Dense(n, 1, L.F, w.f1.data(), P + L.val_fc2_w, P + L.val_fc2_b, w.vout.data());
  for (int64_t i = 0; i < n; ++i) w.v[static_cast<size_t>(i)] = std::tanh(w.vout[static_cast<size_t>(i)]);

  // Softmax (and the loss against pi when given).
  Losses loss;
  for (int64_t i = 0; i < n; ++i) {
    const float* lg = w.logits.data() + i * kNumMoves;
    float* pr = w.probs.data() + i * kNumMoves;
    float mx = lg[0];
    for (int j = 1; j < kNumMoves; ++j) mx = std::max(mx, lg[j]);
    double sum = 0;
    for (int j = 0; j < kNumMoves; ++j) sum += std::exp(static_cast<double>(lg[j] - mx));
    const double log_sum = std::log(sum) + mx;
    for (int j = 0; j < kNumMoves; ++j) {
      pr[j] = static_cast<float>(std::exp(static_cast<double>(lg[j]) - log_sum));
      if (pi != nullptr) loss.policy -= static_cast<double>(pi[i * kNumMoves + j]) * (static_cast<double>(lg[j]) - log_sum);
    }
    if (z != nullptr) {
      const double d = static_cast<double>(w.v[static_cast<size_t>(i)]) - static_cast<double>(z[i]);
      loss.value += d * d;
    }
  }
  loss.policy /= static_cast<double>(n);
  loss.value *= static_cast<double>(cfg_.value_cost_weight) / static_cast<double>(n);
  if (pi != nullptr) {
    double l2 = 0;
    for (size_t i = 0; i < params_.size(); ++i)
      if (decayed_[i]) l2 += static_cast<double>(params_[i]) * static_cast<double>(params_[i]);
    loss.l2 = 0.5 * static_cast<double>(cfg_.l2_strength) * l2;
  }
  if (policy != nullptr) std::copy(w.probs.begin(), w.probs.begin() + n * kNumMoves, policy);
  if (value != nullptr) std::copy(w.v.begin(), w.v.begin() + n, value);
  w.pi = pi;
  w.target = z;
  return loss;
}

void Network::Backward(const float* features, int64_t n, std::vector<float>* grad) {
  const Layout& L = *layout_;
  Work& w = *work_;
  const float* P = params_.data();
  grad->assign(params_.size(), 0.f);
  float* G = grad->data();
  const int64_t rows = n * kNumPoints;
  const int64_t t = rows * L.C;
  const float inv_n = 1.f / static_cast<float>(n);
  const int top = L.convs - 1;
  const float* trunk = w.H[static_cast<size_t>(top)].data();
  float* dtrunk = w.dH[static_cast<size_t>(top)].data();
  for (auto& d : w.dH) std::fill(d.begin(), d.begin() + t, 0.f);

  // A head BN (no scale or centre): dgamma / dbeta are discarded.
  std::vector<float> scratch_g(2 * static_cast<size_t>(std::max<int64_t>(L.C, kPolicyConv)));
  // Policy head: d logits = (softmax - pi) / n.
  std::vector<float> dlogits(static_cast<size_t>(n * kNumMoves));
  for (int64_t i = 0; i < n * kNumMoves; ++i) dlogits[static_cast<size_t>(i)] = (w.probs[static_cast<size_t>(i)] - w.pi[i]) * inv_n;
  std::vector<float> dpr(static_cast<size_t>(rows * kPolicyConv)), dpc(dpr.size());
  const int64_t kp = kNumPoints * kPolicyConv;
  kernels::MatMul(kp, kNumMoves, n, w.pr.data(), kp, true, dlogits.data(), kNumMoves, false, G + L.pol_fc_w, kNumMoves,
                  false, Precision::kF32, 1);
  kernels::BiasGrad(dlogits.data(), G + L.pol_fc_b, n, kNumMoves);
  kernels::MatMul(n, kp, kNumMoves, dlogits.data(), kNumMoves, false, P + L.pol_fc_w, kNumMoves, true, dpr.data(), kp,
                  false, Precision::kF32, 1);
  kernels::ReluGrad(w.pr.data(), dpr.data(), dpr.data(), rows * kPolicyConv);
  kernels::BatchNormBackward(w.pc.data(), dpr.data(), rows, kPolicyConv, w.ones.data(), w.pmean.data(), w.pinv.data(),
                             dpc.data(), scratch_g.data(), scratch_g.data() + kPolicyConv);
  const Conv2dShape ps = Conv(n, L.C, kPolicyConv, 1);
  kernels::Conv2dBackwardFilter(ps, trunk, dpc.data(), G + L.pol_conv, Precision::kF32, 1);
  kernels::Conv2dBackwardData(ps, dpc.data(), P + L.pol_conv, w.dz.data(), Precision::kF32, 1);
  kernels::Add(dtrunk, w.dz.data(), dtrunk, t);

  // Value head: d v = 2 c (v - z) / n, through tanh.
  std::vector<float> dout(static_cast<size_t>(n)), df1(static_cast<size_t>(n * L.F));
  for (int64_t i = 0; i < n; ++i) {
    const float v = w.v[static_cast<size_t>(i)];
    dout[static_cast<size_t>(i)] = 2.f * cfg_.value_cost_weight * (v - w.target[i]) * inv_n * (1.f - v * v);
  }
  kernels::MatMul(L.F, 1, n, w.f1.data(), L.F, true, dout.data(), 1, false, G + L.val_fc2_w, 1, false, Precision::kF32, 1);
  kernels::BiasGrad(dout.data(), G + L.val_fc2_b, n, 1);
  kernels::MatMul(n, L.F, 1, dout.data(), 1, false, P + L.val_fc2_w, 1, true, df1.data(), L.F, false, Precision::kF32, 1);
  kernels::ReluGrad(w.f1.data(), df1.data(), df1.data(), n * L.F);
  const int64_t kv = kNumPoints * kValueConv;
  kernels::MatMul(kv, L.F, n, w.vr.data(), kv, true, df1.data(), L.F, false, G + L.val_fc1_w, L.F, false, Precision::kF32, 1);
  kernels::BiasGrad(df1.data(), G + L.val_fc1_b, n, L.F);
  std::vector<float> dvr(static_cast<size_t>(rows * kValueConv)), dvc(dvr.size());
  kernels::MatMul(n, kv, L.F, df1.data(), L.F, false, P + L.val_fc1_w, L.F, true, dvr.data(), kv, false, Precision::kF32, 1);
  kernels::ReluGrad(w.vr.data(), dvr.data(), dvr.data(), rows * kValueConv);
  kernels::BatchNormBackward(w.vc.data(), dvr.data(), rows, kValueConv, w.ones.data(), w.vmean.data(), w.vinv.data(),
                             dvc.data(), scratch_g.data(), scratch_g.data() + kValueConv);
  const Conv2dShape vs = Conv(n, L.C, kValueConv, 1);
  kernels::Conv2dBackwardFilter(vs, trunk, dvc.data(), G + L.val_conv, Precision::kF32, 1);
  kernels::Conv2dBackwardData(vs, dvc.data(), P + L.val_conv, w.dz.data(), Precision::kF32, 1);
  kernels::Add(dtrunk, w.dz.data(), dtrunk, t);

  // Trunk, top down. dH[k] is complete when k is reached: its readers are
  // conv k + 1 and, for a block's input, the residual of conv k + 2.
  for (int k = top; k >= 0; --k) {
    const size_t ks = static_cast<size_t>(k);
    float* d = w.dH[ks].data();
    kernels::ReluGrad(w.H[ks].data(), d, d, t);  // H > 0 exactly where its pre-activation was
    if (k > 0 && k % 2 == 0) kernels::Add(w.dH[ks - 2].data(), d, w.dH[ks - 2].data(), t);
    const Layout::Bn& b = L.conv_bn[ks];
    kernels::BatchNormBackward(w.Y[ks].data(), d, rows, L.C, P + b.gamma, w.mean[ks].data(), w.inv_std[ks].data(),
                               w.dz.data(), G + b.gamma, G + b.beta);
    const float* x = k == 0 ? features : w.H[ks - 1].data();
    const int64_t cin = k == 0 ? kNumPlanes : L.C;
    const Conv2dShape cs = Conv(n, cin, L.C, 3);
    kernels::Conv2dBackwardFilter(cs, x, w.dz.data(), G + L.conv_w[ks], Precision::kF32, 1);
    if (k > 0) {
      std::vector<float>& prev = w.dH[ks - 1];
      kernels::Conv2dBackwardData(cs, w.dz.data(), P + L.conv_w[ks], w.Y[ks].data(), Precision::kF32, 1);
      kernels::Add(prev.data(), w.Y[ks].data(), prev.data(), t);  // Y[k] is spent: reuse it as scratch
    }
  }
  // L2.
  for (size_t i = 0; i < params_.size(); ++i)
    if (decayed_[i]) G[i] += cfg_.l2_strength * params_[i];
}

void Network::Infer(const float* features, int64_t n, float* policy, float* value) {
  (void)Forward(features, nullptr, nullptr, n, false, false, policy, value);
}

Losses Network::ComputeGradients(const float* features, const float* pi, const float* z, int64_t n,
                                 std::vector<float>* grad) {
  const Losses loss = Forward(features, pi, z, n, true, true, nullptr, nullptr);
  Backward(features, n, grad);
  return loss;
}

Losses Network::Loss(const float* features, const float* pi, const float* z, int64_t n) {
  return Forward(features, pi, z, n, true, false, nullptr, nullptr);
}

Status NetworkEvaluator::Evaluate(std::span<const float> features, int batch, std::span<float> policy,
                                  std::span<float> value) {
  PODBENCH_RETURN_IF_ERROR(CheckEvaluatorSizes("minigo network evaluator", features, batch, policy, value));
  ++calls_;
  positions_ += batch;
  for (int at = 0; at < batch; at += max_batch_) {
    const int m = std::min(max_batch_, batch - at);
    const size_t a = static_cast<size_t>(at);
    net_->Infer(features.data() + a * kFeatureSize, m, policy.data() + a * kNumMoves, value.data() + a);
  }
  return Status::Ok();
}

}  // namespace podbench::minigo
