// Normalized Bahdanau attention for one decoder step (GNMT's attention,
// ../shared/reference/gnmt-v0.6.md section 1; Bahdanau et al. 2015 with the
// weight normalisation of Salimans and Kingma 2016, as TensorFlow's
// BahdanauAttention(normalize=True) computes it):
//   u = g v / |v|;
//   e[b, t] = sum_k u[k] tanh(keys[b, t, k] + q[b, k] + bias[k]) for t < lengths[b];
//   p[b, :] = softmax of e[b, t < lengths[b]] (0 at t >= lengths[b]);
//   context[b, :] = sum_t p[b, t] values[b, t, :].
// keys are the memory layer applied once per sequence (memory W_mem) and q
// the query layer applied to the decoder state (h W_q): the caller's
// matmuls. Everything here is fp32; tanh is the dispatched polynomial one
// (kernels/ops/vector_ops.h).
#pragma once

#include <cstdint>

namespace podbench::kernels {

struct BahdanauShape {
  std::int64_t batch = 1, time = 1;  // source positions (the padded length)
  std::int64_t units = 1;            // attention width (keys, q, v, bias)
  std::int64_t depth = 1;            // values' width
};

// keys [batch, time, units], values [batch, time, depth], q [batch, units],
// v, bias [units], lengths [batch] (each in [1, time]). Writes tanh_out
// [batch, time, units] and probs [batch, time] (kept for backward) and
// context [batch, depth].
void BahdanauForward(const BahdanauShape& s, const float* keys, const float* values, const float* q,
                     const float* v, float g, const float* bias, const std::int32_t* lengths, float* tanh_out,
                     float* probs, float* context);

// From dcontext [batch, depth]: adds into dkeys, dvalues, dv, *dg, dbias and
// writes dq [batch, units] (overwritten).
void BahdanauBackward(const BahdanauShape& s, const float* values, const float* v, float g,
                      const std::int32_t* lengths, const float* tanh_out, const float* probs,
                      const float* dcontext, float* dkeys, float* dvalues, float* dq, float* dv, float* dg,
                      float* dbias);

}  // namespace podbench::kernels
