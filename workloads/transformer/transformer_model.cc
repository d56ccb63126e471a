#include "workloads/transformer/transformer_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/ops/elementwise.h"
#include "kernels/ops/layer_norm.h"
#include "kernels/ops/matmul.h"
#include "kernels/ops/softmax_xent.h"
#include "workloads/transformer/transformer_core_impl.h"

namespace podbench::transformer {

using kernels::MatMul;

namespace {

constexpr float kNormEpsilon = 1e-6f;

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Dropout sites: one id per place a mask is drawn.
uint64_t Site(int stack, int layer, int which) {
  return static_cast<uint64_t>(stack) * 1000 + static_cast<uint64_t>(layer) * 10 + static_cast<uint64_t>(which);
}

void ApplyMask(const uint8_t* mask, float keep_scale, float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) x[i] = mask[i] ? x[i] * keep_scale : 0.f;
}

}  // namespace

Status TransformerConfig::Validate() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("transformer config: " + m); };
  if (vocab < 4) return bad("vocab must be >= 4, got " + std::to_string(vocab));
  if (hidden < 2 || hidden % 2 != 0) return bad("hidden must be even and >= 2, got " + std::to_string(hidden));
  if (heads < 1 || hidden % heads != 0) {
    return bad("heads (" + std::to_string(heads) + ") must divide hidden (" + std::to_string(hidden) + ")");
  }
  if (filter < 1) return bad("filter must be >= 1");
  if (encoder_layers < 1 || decoder_layers < 1) return bad("encoder_layers and decoder_layers must be >= 1");
  if (!(dropout >= 0.f && dropout < 1.f)) return bad("dropout must be in [0, 1)");
  if (!(label_smoothing >= 0.f && label_smoothing <= 1.f)) return bad("label_smoothing must be in [0, 1]");
  return Status::Ok();
}

TransformerConfig TransformerConfig::Big() {
  TransformerConfig c;
  c.vocab = 1 << 15;
  c.hidden = 1024;
  c.heads = 16;
  c.filter = 4096;
  c.encoder_layers = c.decoder_layers = 6;
  return c;
}

ParameterLayout::ParameterLayout(const TransformerConfig& c) {
  const int64_t d = c.hidden, f = c.filter;
  int64_t at = 0;
  auto take = [&](int64_t n) {
    const int64_t o = at;
    at += n;
    return o;
  };
  auto norm = [&] {
    Norm n;
    n.gamma = take(d);
    n.beta = take(d);
    return n;
  };
  auto ffn = [&] {
    FeedForward x;
    x.w1 = take(d * f);
    x.b1 = take(f);
    x.w2 = take(f * d);
    x.b2 = take(d);
    return x;
  };
  embedding = take(int64_t{c.vocab} * d);
  for (int l = 0; l < c.encoder_layers; ++l) {
    EncoderLayer e;
    e.norm1 = norm();
    e.self.q = take(d * 3 * d);
    e.self.out = take(d * d);
    e.norm2 = norm();
    e.ffn = ffn();
    encoder.push_back(e);
  }
  encoder_norm = norm();
  for (int l = 0; l < c.decoder_layers; ++l) {
    DecoderLayer e;
    e.norm1 = norm();
    e.self.q = take(d * 3 * d);
    e.self.out = take(d * d);
    e.norm2 = norm();
    e.cross.q = take(d * d);
    e.cross.kv = take(d * 2 * d);
    e.cross.out = take(d * d);
    e.norm3 = norm();
    e.ffn = ffn();
    decoder.push_back(e);
  }
  decoder_norm = norm();
  total = at;
}

std::vector<float> InitialParameters(const TransformerConfig& c, uint64_t seed) {
  const ParameterLayout l(c);
  std::vector<float> w(static_cast<size_t>(l.total), 0.f);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 0x5eed;
  auto uniform = [&] { return static_cast<double>(Mix(state += 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53; };
  const int64_t d = c.hidden, f = c.filter;
  // Embedding: N(0, d^-0.5) by Box-Muller.
  const double sd = std::pow(static_cast<double>(d), -0.5);
  for (int64_t i = 0; i < int64_t{c.vocab} * d; ++i) {
    const double u1 = std::max(uniform(), 1e-300), u2 = uniform();
    w[static_cast<size_t>(l.embedding + i)] =
        static_cast<float>(sd * std::sqrt(-2 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  auto glorot = [&](int64_t at, int64_t rows, int64_t cols, int64_t fan_in, int64_t fan_out) {
    const double limit = std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
    for (int64_t i = 0; i < rows * cols; ++i) w[static_cast<size_t>(at + i)] = static_cast<float>((2 * uniform() - 1) * limit);
  };
  auto ones = [&](const ParameterLayout::Norm& n) { std::fill_n(w.begin() + n.gamma, d, 1.f); };
  auto ffn = [&](const ParameterLayout::FeedForward& x) {
    glorot(x.w1, d, f, d, f);
    glorot(x.w2, f, d, f, d);
  };
  for (const auto& e : l.encoder) {
    ones(e.norm1);
    ones(e.norm2);
    glorot(e.self.q, d, 3 * d, d, d);
    glorot(e.self.out, d, d, d, d);
    ffn(e.ffn);
  }
  ones(l.encoder_norm);
  for (const auto& e : l.decoder) {
    ones(e.norm1);
    ones(e.norm2);
    ones(e.norm3);
    glorot(e.self.q, d, 3 * d, d, d);
    glorot(e.self.out, d, d, d, d);
    glorot(e.cross.q, d, d, d, d);
    glorot(e.cross.kv, d, 2 * d, d, d);
    glorot(e.cross.out, d, d, d, d);
    ffn(e.ffn);
  }
  ones(l.decoder_norm);
  return w;
}

void DropoutMask(const StepContext& ctx, uint64_t site, float p, int64_t n, uint8_t* mask) {
  const uint64_t key = Mix(Mix(Mix(ctx.seed ^ 0x64726f70ull) + static_cast<uint64_t>(ctx.step)) +
                           (static_cast<uint64_t>(ctx.core) << 32) + site);
  const auto threshold = static_cast<uint64_t>(static_cast<double>(p) * 16777216.0);
  for (int64_t i = 0; i < n; ++i) {
    mask[i] = (Mix(key + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull) >> 40) >= threshold;
  }
}

// ---------------------------------------------------------------- shared pieces

TransformerCore::Impl::Impl(const TransformerConfig& c, const ParameterLayout& l)
    : cfg(c), layout(l), d(c.hidden), heads(c.heads), dh(c.hidden / c.heads), filter(c.filter), vocab(c.vocab),
      scale(1.f / std::sqrt(static_cast<float>(c.hidden / c.heads))) {
  enc_self.resize(static_cast<size_t>(c.encoder_layers));
  enc_ffn.resize(static_cast<size_t>(c.encoder_layers));
  dec_self.resize(static_cast<size_t>(c.decoder_layers));
  dec_cross.resize(static_cast<size_t>(c.decoder_layers));
  dec_ffn.resize(static_cast<size_t>(c.decoder_layers));
  cross_kv.resize(static_cast<size_t>(c.decoder_layers));
  enc.x.resize(static_cast<size_t>(2 * c.encoder_layers + 1));
  dec.x.resize(static_cast<size_t>(3 * c.decoder_layers + 1));
}

const float* TransformerCore::Impl::Timing(int32_t p) {
  if (p >= timing_positions) {
    const int32_t n = std::max(p + 1, 2 * timing_positions);
    timing.resize(static_cast<size_t>(n) * static_cast<size_t>(d));
    const int half = d / 2;
    // tensor2tensor's get_timing_signal_1d: timescales from 1 to 1e4.
    const double log_inc = std::log(1e4) / std::max(1, half - 1);
    for (int32_t q = timing_positions; q < n; ++q) {
      float* t = timing.data() + static_cast<size_t>(q) * static_cast<size_t>(d);
      for (int i = 0; i < half; ++i) {
        const double a = q * std::exp(-i * log_inc);
        t[i] = static_cast<float>(std::sin(a));
        t[half + i] = static_cast<float>(std::cos(a));
      }
    }
    timing_positions = n;
  }
  return timing.data() + static_cast<size_t>(p) * static_cast<size_t>(d);
}

void TransformerCore::Impl::Embed(const float* w, const int32_t* ids, const int32_t* seg, const int32_t* pos,
                                  int64_t n, bool shift, float* x) {
  const float* table = w + layout.embedding;
  const float s = std::sqrt(static_cast<float>(d));
  for (int64_t i = 0; i < n; ++i) {
    float* xi = x + i * d;
    std::fill_n(xi, d, 0.f);
    if (seg[i] == 0) continue;
    const bool start = shift && pos[i] == 0;
    if (!start) {
      const float* e = table + static_cast<int64_t>(shift ? ids[i - 1] : ids[i]) * d;
      for (int k = 0; k < d; ++k) xi[k] = e[k] * s;
    }
    const float* t = Timing(pos[i]);
    for (int k = 0; k < d; ++k) xi[k] += t[k];
  }
}

void TransformerCore::Impl::Norm(const float* w, const ParameterLayout::Norm& p, const float* x, int64_t n,
                                 NormCache& c) const {
  c.y.resize(static_cast<size_t>(n * d));
  c.mean.resize(static_cast<size_t>(n));
  c.inv_std.resize(static_cast<size_t>(n));
  kernels::LayerNormForward(x, n, d, w + p.gamma, w + p.beta, kNormEpsilon, c.y.data(), c.mean.data(),
                            c.inv_std.data());
}

void TransformerCore::Impl::Dense(const float* x, int64_t n, int64_t in, int64_t out, const float* wt,
                                  const float* bias, float* y, bool accumulate) const {
  MatMul(n, out, in, x, in, false, wt, out, false, y, out, accumulate, cfg.precision);
  if (bias) kernels::AddBias(bias, y, n, out);
}

void TransformerCore::Impl::AttentionForward(int64_t rs, int64_t tq, int64_t tk, const float* q, int64_t ldq,
                                             const float* k, const float* v, int64_t ldkv, const uint8_t* mask,
                                             AttentionCache& c) const {
  c.probs.resize(static_cast<size_t>(rs * heads * tq * tk));
  c.ctx.resize(static_cast<size_t>(rs * tq * d));
  for (int64_t r = 0; r < rs; ++r) {
    for (int h = 0; h < heads; ++h) {
      float* p = c.probs.data() + (r * heads + h) * tq * tk;
      MatMul(tq, tk, dh, q + r * tq * ldq + h * dh, ldq, false, k + r * tk * ldkv + h * dh, ldkv, true, p, tk, false,
             cfg.precision);
      for (int64_t i = 0; i < tq * tk; ++i) p[i] *= scale;
      kernels::MaskedSoftmax(p, mask + r * tq * tk, tq, tk);
      MatMul(tq, dh, tk, p, tk, false, v + r * tk * ldkv + h * dh, ldkv, false, c.ctx.data() + r * tq * d + h * dh, d,
             false, cfg.precision);
    }
  }
}

void TransformerCore::Impl::Dropout(std::vector<uint8_t>& mask, uint64_t site, float* x, int64_t n,
                                    const StepContext& ctx) const {
  const float p = ctx.training ? cfg.dropout : 0.f;
  if (p <= 0.f) return;
  mask.resize(static_cast<size_t>(n));
  DropoutMask(ctx, site, p, n, mask.data());
  ApplyMask(mask.data(), 1.f / (1.f - p), x, n);
}

void TransformerCore::Impl::SelfAttentionSublayer(const float* w, const ParameterLayout::Attention& P,
                                                  const ParameterLayout::Norm& N, AttentionCache& a,
                                                  const float* x_in, float* x_out, int64_t rs, int64_t t,
                                                  const uint8_t* mask, const StepContext& ctx, uint64_t site) {
  const int64_t n = rs * t;
  Norm(w, N, x_in, n, a.norm);
  a.q.resize(static_cast<size_t>(n * 3 * d));
  Dense(a.norm.y.data(), n, d, 3 * d, w + P.q, nullptr, a.q.data());
  AttentionForward(rs, t, t, a.q.data(), 3 * d, a.q.data() + d, a.q.data() + 2 * d, 3 * d, mask, a);
  Dense(a.ctx.data(), n, d, d, w + P.out, nullptr, tmp1.data());
  Dropout(a.drop, site, tmp1.data(), n * d, ctx);
  kernels::Add(x_in, tmp1.data(), x_out, n * d);
}

void TransformerCore::Impl::FeedForwardSublayer(const float* w, const ParameterLayout::FeedForward& P,
                                                const ParameterLayout::Norm& N, FeedForwardCache& f,
                                                const float* x_in, float* x_out, int64_t n, const StepContext& ctx,
                                                uint64_t site) {
  Norm(w, N, x_in, n, f.norm);
  f.pre.resize(static_cast<size_t>(n * filter));
  f.act.resize(f.pre.size());
  Dense(f.norm.y.data(), n, d, filter, w + P.w1, w + P.b1, f.pre.data());
  kernels::Relu(f.pre.data(), f.act.data(), n * filter);
  Dense(f.act.data(), n, filter, d, w + P.w2, w + P.b2, tmp1.data());
  Dropout(f.drop, site, tmp1.data(), n * d, ctx);
  kernels::Add(x_in, tmp1.data(), x_out, n * d);
}

void TransformerCore::Impl::EncoderForward(const float* w, int64_t rs, int64_t t, const uint8_t* mask,
                                           const StepContext& ctx) {
  const int64_t n = rs * t;
  Dropout(enc.input_drop, Site(1, 0, 0), enc.x[0].data(), n * d, ctx);
  tmp1.resize(static_cast<size_t>(n * std::max(d, filter)));
  for (int l = 0; l < cfg.encoder_layers; ++l) {
    const auto& P = layout.encoder[static_cast<size_t>(l)];
    const auto L = static_cast<size_t>(l);
    SelfAttentionSublayer(w, P.self, P.norm1, enc_self[L], enc.x[2 * L].data(), enc.x[2 * L + 1].data(), rs, t, mask,
                          ctx, Site(1, l, 1));
    FeedForwardSublayer(w, P.ffn, P.norm2, enc_ffn[L], enc.x[2 * L + 1].data(), enc.x[2 * L + 2].data(), n, ctx,
                        Site(1, l, 2));
  }
  Norm(w, layout.encoder_norm, enc.x.back().data(), n, enc.final_norm);
}

// ---------------------------------------------------------------- training

void TransformerCore::Impl::Resize(int64_t rs, int64_t t) {
  rows = rs;
  len = t;
  const auto n = static_cast<size_t>(rs * t * d);
  for (auto& x : enc.x) x.resize(n);
  for (auto& x : dec.x) x.resize(n);
}

namespace {

// Attention masks of packed rows: same example; causal in the decoder.
void BuildMasks(const translation::PackedRows& b, std::vector<uint8_t>& enc, std::vector<uint8_t>& dec,
                std::vector<uint8_t>& cross) {
  const int64_t t = b.length;
  const auto n = static_cast<size_t>(b.rows * t * t);
  enc.resize(n);
  dec.resize(n);
  cross.resize(n);
  for (int64_t r = 0; r < b.rows; ++r) {
    const int32_t* si = b.inputs_segmentation.data() + r * t;
    const int32_t* st = b.targets_segmentation.data() + r * t;
    for (int64_t i = 0; i < t; ++i) {
      const size_t row = static_cast<size_t>((r * t + i) * t);
      for (int64_t j = 0; j < t; ++j) {
        enc[row + static_cast<size_t>(j)] = si[i] != 0 && si[i] == si[j];
        dec[row + static_cast<size_t>(j)] = st[i] != 0 && st[i] == st[j] && j <= i;
        cross[row + static_cast<size_t>(j)] = st[i] != 0 && st[i] == si[j];
      }
    }
  }
}

}  // namespace

std::pair<double, int64_t> TransformerCore::Impl::Forward(const float* w, const translation::PackedRows& b,
                                                          const StepContext& ctx, bool for_backward) {
  Resize(b.rows, b.length);
  const int64_t t = b.length, n = b.rows * t;
  BuildMasks(b, enc_mask, dec_mask, cross_mask);
  Embed(w, b.inputs.data(), b.inputs_segmentation.data(), b.inputs_position.data(), n, false, enc.x[0].data());
  EncoderForward(w, b.rows, t, enc_mask.data(), ctx);
  const float* enc_out = enc.final_norm.y.data();

  Embed(w, b.targets.data(), b.targets_segmentation.data(), b.targets_position.data(), n, true, dec.x[0].data());
  Dropout(dec.input_drop, Site(2, 0, 0), dec.x[0].data(), n * d, ctx);
  for (int l = 0; l < cfg.decoder_layers; ++l) {
    const auto& P = layout.decoder[static_cast<size_t>(l)];
    const auto L = static_cast<size_t>(l);
    float* x1 = dec.x[3 * L + 1].data();
    float* x2 = dec.x[3 * L + 2].data();
    SelfAttentionSublayer(w, P.self, P.norm1, dec_self[L], dec.x[3 * L].data(), x1, b.rows, t, dec_mask.data(), ctx,
                          Site(2, l, 1));
    // Encoder-decoder attention.
    AttentionCache& c = dec_cross[L];
    std::vector<float>& kv = cross_kv[L];
    Norm(w, P.norm2, x1, n, c.norm);
    c.q.resize(static_cast<size_t>(n * d));
    Dense(c.norm.y.data(), n, d, d, w + P.cross.q, nullptr, c.q.data());
    kv.resize(static_cast<size_t>(n * 2 * d));
    Dense(enc_out, n, d, 2 * d, w + P.cross.kv, nullptr, kv.data());
    AttentionForward(b.rows, t, t, c.q.data(), d, kv.data(), kv.data() + d, 2 * d, cross_mask.data(), c);
    Dense(c.ctx.data(), n, d, d, w + P.cross.out, nullptr, tmp1.data());
    Dropout(c.drop, Site(2, l, 2), tmp1.data(), n * d, ctx);
    kernels::Add(x1, tmp1.data(), x2, n * d);
    FeedForwardSublayer(w, P.ffn, P.norm3, dec_ffn[L], x2, dec.x[3 * L + 3].data(), n, ctx, Site(2, l, 3));
  }
  Norm(w, layout.decoder_norm, dec.x.back().data(), n, dec.final_norm);

  // Logits and loss over the target tokens only.
  target_rows.clear();
  labels.clear();
  for (int64_t i = 0; i < n; ++i) {
    if (b.targets_segmentation[static_cast<size_t>(i)] != 0) {
      target_rows.push_back(i);
      labels.push_back(b.targets[static_cast<size_t>(i)]);
    }
  }
  const auto m = static_cast<int64_t>(target_rows.size());
  if (m == 0) return {0.0, 0};
  hsel.resize(static_cast<size_t>(m * d));
  for (int64_t k = 0; k < m; ++k) {
    std::memcpy(hsel.data() + k * d, dec.final_norm.y.data() + target_rows[static_cast<size_t>(k)] * d,
                static_cast<size_t>(d) * sizeof(float));
  }
  logits.resize(static_cast<size_t>(m * vocab));
  MatMul(m, vocab, d, hsel.data(), d, false, w + layout.embedding, d, true, logits.data(), vocab, false,
         cfg.precision);
  // The loss kernel writes the gradient of the mean over the m rows; the
  // step's loss is loss_scale x the sum, so dlogits is scaled by that x m.
  const double mean = kernels::SoftmaxCrossEntropy(logits.data(), labels.data(), m, vocab, cfg.label_smoothing,
                                                   for_backward ? logits.data() : nullptr);
  if (for_backward) kernels::Scale(static_cast<float>(ctx.loss_scale * static_cast<double>(m)), logits.data(), logits.data(), m * vocab);
  return {mean * static_cast<double>(m), m};
}

namespace {

struct BackwardScratch {
  std::vector<float> dout, da, db, dp;
};

}  // namespace

// Backward helpers (file-local; they read the Impl's caches).
class TrainingBackward {
 public:
  TrainingBackward(TransformerCore::Impl& m, const float* w, float* grad, float drop_p)
      : m_(m), w_(w), g_(grad), d_(m.d), n_(m.rows * m.len), p_(drop_p), keep_(1.f / (1.f - drop_p)) {
    const auto big = static_cast<size_t>(n_ * std::max(3 * d_, m.filter));
    s_.dout.resize(big);
    s_.da.resize(big);
    s_.db.resize(big);
    s_.dp.resize(static_cast<size_t>(m.len * m.len));
  }

  // g: the residual gradient at the sublayer's output; adds the gradient
  // through the sublayer to it (the residual path keeps g itself).
  void FeedForward(const ParameterLayout::FeedForward& P, const ParameterLayout::Norm& N, FeedForwardCache& c,
                   const float* x_in, float* g) {
    const int64_t f = m_.filter;
    float* dout = Dropped(c.drop, g);
    kernels::BiasGrad(dout, g_ + P.b2, n_, d_);
    MatMul(f, d_, n_, c.act.data(), f, true, dout, d_, false, g_ + P.w2, d_, true, m_.cfg.precision);
    float* dact = s_.da.data();
    MatMul(n_, f, d_, dout, d_, false, w_ + P.w2, d_, true, dact, f, false, m_.cfg.precision);
    kernels::ReluGrad(c.pre.data(), dact, dact, n_ * f);
    kernels::BiasGrad(dact, g_ + P.b1, n_, f);
    MatMul(d_, f, n_, c.norm.y.data(), d_, true, dact, f, false, g_ + P.w1, f, true, m_.cfg.precision);
    float* dy = s_.dout.data();
    MatMul(n_, d_, f, dact, f, false, w_ + P.w1, f, true, dy, d_, false, m_.cfg.precision);
    NormBackward(N, c.norm, x_in, dy, g);
  }

  // Self-attention (fused q|k|v).
  void SelfAttention(const ParameterLayout::Attention& P, const ParameterLayout::Norm& N, AttentionCache& c,
                     const float* x_in, float* g) {
    float* dout = Dropped(c.drop, g);
    MatMul(d_, d_, n_, c.ctx.data(), d_, true, dout, d_, false, g_ + P.out, d_, true, m_.cfg.precision);
    float* dctx = s_.da.data();
    MatMul(n_, d_, d_, dout, d_, false, w_ + P.out, d_, true, dctx, d_, false, m_.cfg.precision);
    float* dqkv = s_.db.data();
    const float* q = c.q.data();
    AttentionBackward(c, q, 3 * d_, q + d_, q + 2 * d_, 3 * d_, dctx, dqkv, dqkv + d_, dqkv + 2 * d_);
    MatMul(d_, 3 * d_, n_, c.norm.y.data(), d_, true, dqkv, 3 * d_, false, g_ + P.q, 3 * d_, true, m_.cfg.precision);
    float* dy = s_.dout.data();
    MatMul(n_, d_, 3 * d_, dqkv, 3 * d_, false, w_ + P.q, 3 * d_, true, dy, d_, false, m_.cfg.precision);
    NormBackward(N, c.norm, x_in, dy, g);
  }

  // Encoder-decoder attention; adds the encoder output's gradient to d_enc.
  void CrossAttention(const ParameterLayout::Attention& P, const ParameterLayout::Norm& N, AttentionCache& c,
                      const std::vector<float>& kv, const float* enc_out, const float* x_in, float* g, float* d_enc) {
    float* dout = Dropped(c.drop, g);
    MatMul(d_, d_, n_, c.ctx.data(), d_, true, dout, d_, false, g_ + P.out, d_, true, m_.cfg.precision);
    float* dctx = s_.da.data();
    MatMul(n_, d_, d_, dout, d_, false, w_ + P.out, d_, true, dctx, d_, false, m_.cfg.precision);
    // dq in db[0, n d), dkv in db[n d, 3 n d).
    float* dq = s_.db.data();
    float* dkv = s_.db.data() + n_ * d_;
    AttentionBackward(c, c.q.data(), d_, kv.data(), kv.data() + d_, 2 * d_, dctx, dq, dkv, dkv + d_);
    MatMul(d_, 2 * d_, n_, enc_out, d_, true, dkv, 2 * d_, false, g_ + P.kv, 2 * d_, true, m_.cfg.precision);
    MatMul(n_, d_, 2 * d_, dkv, 2 * d_, false, w_ + P.kv, 2 * d_, true, d_enc, d_, true, m_.cfg.precision);
    MatMul(d_, d_, n_, c.norm.y.data(), d_, true, dq, d_, false, g_ + P.q, d_, true, m_.cfg.precision);
    float* dy = s_.dout.data();
    MatMul(n_, d_, d_, dq, d_, false, w_ + P.q, d_, true, dy, d_, false, m_.cfg.precision);
    NormBackward(N, c.norm, x_in, dy, g);
  }

  // g += LayerNorm backward of dy (gamma/beta gradients into the gradient).
  void NormBackward(const ParameterLayout::Norm& N, const NormCache& c, const float* x_in, const float* dy, float* g) {
    float* dx = s_.da.data();
    kernels::LayerNormBackward(x_in, dy, n_, d_, w_ + N.gamma, c.mean.data(), c.inv_std.data(), dx, g_ + N.gamma,
                               g_ + N.beta);
    kernels::Axpy(1.f, dx, g, n_ * d_);
  }

  // The gradient of a dropped-out value from the gradient after dropout.
  float* Dropped(const std::vector<uint8_t>& mask, const float* g) {
    float* out = s_.dout.data();
    std::memcpy(out, g, static_cast<size_t>(n_ * d_) * sizeof(float));
    if (p_ > 0.f) ApplyMask(mask.data(), keep_, out, n_ * d_);
    return out;
  }

 private:
  // Gradients of q, k, v (strided like them) from dctx, per row and head.
  void AttentionBackward(const AttentionCache& c, const float* q, int64_t ldq, const float* k, const float* v,
                         int64_t ldkv, const float* dctx, float* dq, float* dk, float* dv) {
    const int64_t t = m_.len, dh = m_.dh;
    const auto prec = m_.cfg.precision;
    float* dp = s_.dp.data();
    for (int64_t r = 0; r < m_.rows; ++r) {
      for (int h = 0; h < m_.heads; ++h) {
        const float* p = c.probs.data() + (r * m_.heads + h) * t * t;
        const float* go = dctx + r * t * d_ + h * dh;
        const int64_t qo = r * t * ldq + h * dh, ko = r * t * ldkv + h * dh;
        MatMul(t, dh, t, p, t, true, go, d_, false, dv + ko, ldkv, false, prec);
        MatMul(t, t, dh, go, d_, false, v + ko, ldkv, true, dp, t, false, prec);
        kernels::SoftmaxBackward(p, dp, dp, t, t);
        kernels::Scale(m_.scale, dp, dp, t * t);
        MatMul(t, dh, t, dp, t, false, k + ko, ldkv, false, dq + qo, ldq, false, prec);
        MatMul(t, dh, t, dp, t, true, q + qo, ldq, false, dk + ko, ldkv, false, prec);
      }
    }
  }

  TransformerCore::Impl& m_;
  const float* w_;
  float* g_;
  int d_;
  int64_t n_;
  float p_, keep_;
  BackwardScratch s_;
};

void TransformerCore::Impl::Backward(const float* w, const translation::PackedRows& b, const StepContext& ctx,
                                     float* grad) {
  std::fill_n(grad, layout.total, 0.f);
  const int64_t n = rows * len, m = static_cast<int64_t>(target_rows.size());
  const float p = ctx.training ? cfg.dropout : 0.f;
  TrainingBackward bw(*this, w, grad, p);
  float* d_table = grad + layout.embedding;
  const float* table = w + layout.embedding;
  // Logits = hsel E^T: gradients of hsel and of the (shared) embedding.
  std::vector<float> gdec(static_cast<size_t>(n * d), 0.f), genc(static_cast<size_t>(n * d), 0.f);
  if (m > 0) {
    std::vector<float> dhsel(static_cast<size_t>(m * d));
    MatMul(m, d, vocab, logits.data(), vocab, false, table, d, false, dhsel.data(), d, false, cfg.precision);
    MatMul(vocab, d, m, logits.data(), vocab, true, hsel.data(), d, false, d_table, d, true, cfg.precision);
    for (int64_t k = 0; k < m; ++k) {
      std::memcpy(gdec.data() + target_rows[static_cast<size_t>(k)] * d, dhsel.data() + k * d,
                  static_cast<size_t>(d) * sizeof(float));
    }
  }
  // The decoder's final norm: its gradient replaces the stream gradient.
  std::vector<float> dy = gdec;
  std::fill(gdec.begin(), gdec.end(), 0.f);
  bw.NormBackward(layout.decoder_norm, dec.final_norm, dec.x.back().data(), dy.data(), gdec.data());
  const float* enc_out = enc.final_norm.y.data();
  std::vector<float> d_enc(static_cast<size_t>(n * d), 0.f);
  for (int l = cfg.decoder_layers - 1; l >= 0; --l) {
    const auto& P = layout.decoder[static_cast<size_t>(l)];
    const auto L = static_cast<size_t>(l);
    bw.FeedForward(P.ffn, P.norm3, dec_ffn[L], dec.x[3 * L + 2].data(), gdec.data());
    bw.CrossAttention(P.cross, P.norm2, dec_cross[L], cross_kv[L], enc_out, dec.x[3 * L + 1].data(), gdec.data(),
                      d_enc.data());
    bw.SelfAttention(P.self, P.norm1, dec_self[L], dec.x[3 * L].data(), gdec.data());
  }
  const float s = std::sqrt(static_cast<float>(d));
  // Decoder input: the shifted target embedding.
  const float* g0 = bw.Dropped(dec.input_drop, gdec.data());
  for (int64_t i = 0; i < n; ++i) {
    if (b.targets_segmentation[static_cast<size_t>(i)] == 0 || b.targets_position[static_cast<size_t>(i)] == 0) continue;
    kernels::Axpy(s, g0 + i * d, d_table + static_cast<int64_t>(b.targets[static_cast<size_t>(i - 1)]) * d, d);
  }
  // Encoder.
  bw.NormBackward(layout.encoder_norm, enc.final_norm, enc.x.back().data(), d_enc.data(), genc.data());
  for (int l = cfg.encoder_layers - 1; l >= 0; --l) {
    const auto& P = layout.encoder[static_cast<size_t>(l)];
    const auto L = static_cast<size_t>(l);
    bw.FeedForward(P.ffn, P.norm2, enc_ffn[L], enc.x[2 * L + 1].data(), genc.data());
    bw.SelfAttention(P.self, P.norm1, enc_self[L], enc.x[2 * L].data(), genc.data());
  }
  const float* e0 = bw.Dropped(enc.input_drop, genc.data());
  for (int64_t i = 0; i < n; ++i) {
    if (b.inputs_segmentation[static_cast<size_t>(i)] == 0) continue;
    kernels::Axpy(s, e0 + i * d, d_table + static_cast<int64_t>(b.inputs[static_cast<size_t>(i)]) * d, d);
  }
}

// ---------------------------------------------------------------- the core

TransformerCore::TransformerCore(const TransformerConfig& config, const ParameterLayout& layout)
    : impl_(std::make_unique<Impl>(config, layout)) {}

TransformerCore::~TransformerCore() = default;

Result<std::pair<double, int64_t>> TransformerCore::TrainStep(const float* w, const translation::PackedRows& rows,
                                                             const StepContext& ctx, float* grad) {
  if (rows.rows < 1 || rows.length < 1 ||
      rows.targets.size() != static_cast<size_t>(rows.rows * rows.length)) {
    return Status::InvalidArgument("transformer: a step needs at least one packed row of consistent shape");
  }
  for (int32_t id : rows.targets) {
    if (id < 0 || id >= impl_->vocab) return Status::InvalidArgument("transformer: target id " + std::to_string(id) + " outside the vocabulary");
  }
  for (int32_t id : rows.inputs) {
    if (id < 0 || id >= impl_->vocab) return Status::InvalidArgument("transformer: source id " + std::to_string(id) + " outside the vocabulary");
  }
  auto loss = impl_->Forward(w, rows, ctx, grad != nullptr);
  if (grad) impl_->Backward(w, rows, ctx, grad);
  return loss;
}

}  // namespace podbench::transformer
