// Private to transformer_model.cc and transformer_decoder.cc: one core's
// workspaces and the pieces training and decoding share.
#pragma once

#include <cstdint>
#include <vector>

#include "workloads/transformer/transformer_model.h"

namespace podbench::transformer {

// Saved by a pre-norm sublayer's layer norm for its backward pass.
struct NormCache {
  std::vector<float> y, mean, inv_std;
};

// One attention sublayer's saved activations.
struct AttentionCache {
  NormCache norm;
  std::vector<float> q;      // self: [N, 3d] q|k|v; cross: [N, d]
  std::vector<float> probs;  // [rows * heads, tq, tk]
  std::vector<float> ctx;    // [N, d] heads concatenated, before the output projection
  std::vector<uint8_t> drop; // [N, d]
};

struct FeedForwardCache {
  NormCache norm;
  std::vector<float> pre, act;  // [N, filter] before / after ReLU
  std::vector<uint8_t> drop;    // [N, d]
};

struct TransformerCore::Impl {
  Impl(const TransformerConfig& c, const ParameterLayout& l);

  TransformerConfig cfg;
  ParameterLayout layout;
  int d, heads, dh, filter;
  int64_t vocab;
  float scale;  // attention scores: dh^-0.5

  // ---- shared by training and decoding
  // The residual streams (x_0 = embedded input, then one per sublayer).
  struct Stack {
    std::vector<std::vector<float>> x;  // [sublayers + 1][N * d]
    std::vector<uint8_t> input_drop;    // dropout mask of the embedded input
    NormCache final_norm;
    std::vector<float> out;             // final layer norm output [N, d]
  };
  // Embeds `ids` (padding and `start` positions get zero vectors) scaled by
  // sqrt(d), plus the timing signal at `pos`; `shift`: the decoder input, the
  // id one position earlier within the example (zero at position 0).
  void Embed(const float* w, const int32_t* ids, const int32_t* seg, const int32_t* pos, int64_t n, bool shift,
             float* x);
  // Timing signal of position p, channel i (sin for i < d/2, cos above).
  const float* Timing(int32_t p);
  // The encoder over rows x t tokens into enc (x_0 must hold the embedded input).
  void EncoderForward(const float* w, int64_t rows, int64_t t, const uint8_t* mask, const StepContext& ctx);
  // Dropout of n values of x in place (no-op outside training or at p = 0);
  // the mask is kept for the backward pass.
  void Dropout(std::vector<uint8_t>& mask, uint64_t site, float* x, int64_t n, const StepContext& ctx) const;
  // Pre-norm sublayers: x_out = x_in + Dropout(Sublayer(LayerNorm(x_in))).
  void SelfAttentionSublayer(const float* w, const ParameterLayout::Attention& p, const ParameterLayout::Norm& norm,
                             AttentionCache& c, const float* x_in, float* x_out, int64_t rows, int64_t t,
                             const uint8_t* mask, const StepContext& ctx, uint64_t site);
  void FeedForwardSublayer(const float* w, const ParameterLayout::FeedForward& p, const ParameterLayout::Norm& norm,
                           FeedForwardCache& c, const float* x_in, float* x_out, int64_t n, const StepContext& ctx,
                           uint64_t site);
  // y = LayerNorm(x) (epsilon 1e-6) with its cache.
  void Norm(const float* w, const ParameterLayout::Norm& p, const float* x, int64_t n, NormCache& c) const;
  // Attention of [rows, tq] queries over [rows, tk] keys/values for every
  // head: probs and ctx of `c` filled. q/k/v are strided views into their
  // projection buffers (leading dimensions ldq, ldkv).
  void AttentionForward(int64_t rows, int64_t tq, int64_t tk, const float* q, int64_t ldq, const float* k,
                        const float* v, int64_t ldkv, const uint8_t* mask, AttentionCache& c) const;
  // A dense layer y[n, out] = x[n, in] W (+ b).
  void Dense(const float* x, int64_t n, int64_t in, int64_t out, const float* wt, const float* bias, float* y,
             bool accumulate = false) const;

  // ---- training (transformer_model.cc)
  int64_t rows = 0, len = 0;  // shape of the last forward
  std::vector<uint8_t> enc_mask, dec_mask, cross_mask;  // [rows, len, len]
  Stack enc, dec;
  std::vector<AttentionCache> enc_self, dec_self, dec_cross;
  std::vector<FeedForwardCache> enc_ffn, dec_ffn;
  std::vector<std::vector<float>> cross_kv;  // per decoder layer: encoder output x Wkv [N, 2d]
  std::vector<int64_t> target_rows;          // positions with a target token
  std::vector<int32_t> labels;
  std::vector<float> hsel, logits;           // [M, d], [M, vocab]
  std::vector<float> tmp1, tmp2, tmp3;       // scratch

  void Resize(int64_t rows, int64_t len);
  // Forward of a packed batch; returns the summed loss and target tokens;
  // leaves dlogits (scaled) in `logits` when `backward` will follow.
  std::pair<double, int64_t> Forward(const float* w, const translation::PackedRows& b, const StepContext& ctx,
                                     bool for_backward);
  void Backward(const float* w, const translation::PackedRows& b, const StepContext& ctx, float* grad);

  // ---- decoding (transformer_decoder.cc)
  int64_t dec_batch = 0, src_len = 0;
  std::vector<int64_t> src_lengths;
  std::vector<uint8_t> src_mask;             // [batch, src_len]: real token
  std::vector<std::vector<float>> dec_cross_kv;  // per layer [batch * src_len, 2d]
  std::vector<std::vector<float>> cache_k, cache_v, cache_tmp;  // per layer [rows, steps, d]
  const float* dec_weights = nullptr;
  std::vector<float> timing;                 // [positions, d]
  int32_t timing_positions = 0;
};

// Dropout mask for `n` elements of site `site`: 1 keeps (scaled by
// 1 / (1 - p)), 0 drops; a pure function of (ctx.seed, ctx.step, ctx.core,
// site, element).
void DropoutMask(const StepContext& ctx, uint64_t site, float p, int64_t n, uint8_t* mask);

}  // namespace podbench::transformer
