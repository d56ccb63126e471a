// Scaled dot-product attention over a batch (heads folded into the batch):
// P = masked_softmax(scale * Q K^T), O = P V. Batched matmuls use the
// selected fp32 GEMM.
#pragma once

#include <cstdint>

namespace podbench::kernels {

struct AttentionShape {
  std::int64_t batch = 1, tq = 1, tk = 1, d = 1, dv = 1;
};

// q [batch, tq, d], k [batch, tk, d], v [batch, tk, dv]; mask [batch, tq, tk]
// (nonzero = attend) or null; writes probs [batch, tq, tk] (kept for the
// backward pass) and out [batch, tq, dv]. threads 0 = all.
void AttentionForward(const AttentionShape& s, const float* q, const float* k, const float* v,
                      const std::uint8_t* mask, float scale, float* probs, float* out, int threads = 0);
// Gradients (overwritten) from dout and the forward's probs.
void AttentionBackward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const float* probs, const float* dout, float scale, float* dq, float* dk,
                       float* dv, int threads = 0);

}  // namespace podbench::kernels
