#include "kernels/ops/attention.h"

#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/ops/softmax_xent.h"

namespace podbench::kernels {

void AttentionForward(const AttentionShape& s, const float* q, const float* k, const float* v,
                      const std::uint8_t* mask, float scale, float* probs, float* out, int threads) {
  for (std::int64_t b = 0; b < s.batch; ++b) {
    float* p = probs + b * s.tq * s.tk;
    GemmF32(s.tq, s.tk, s.d, q + b * s.tq * s.d, s.d, false, k + b * s.tk * s.d, s.d, true, p, s.tk,
            false, threads);
    for (std::int64_t i = 0; i < s.tq * s.tk; ++i) p[i] *= scale;
    MaskedSoftmax(p, mask ? mask + b * s.tq * s.tk : nullptr, s.tq, s.tk);
    GemmF32(s.tq, s.dv, s.tk, p, s.tk, false, v + b * s.tk * s.dv, s.dv, false,
            out + b * s.tq * s.dv, s.dv, false, threads);
  }
}

void AttentionBackward(const AttentionShape& s, const float* q, const float* k, const float* v,
                       const float* probs, const float* dout, float scale, float* dq, float* dk,
                       float* dv, int threads) {
  std::vector<float> dp(std::size_t(s.tq * s.tk)), ds(std::size_t(s.tq * s.tk));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const float* p = probs + b * s.tq * s.tk;
    const float* go = dout + b * s.tq * s.dv;
    // dV = P^T dO; dP = dO V^T.
    GemmF32(s.tk, s.dv, s.tq, p, s.tk, true, go, s.dv, false, dv + b * s.tk * s.dv, s.dv, false, threads);
    GemmF32(s.tq, s.tk, s.dv, go, s.dv, false, v + b * s.tk * s.dv, s.dv, true, dp.data(), s.tk, false,
            threads);
    // Masked entries have P = 0, so their score gradient is 0.
    SoftmaxBackward(p, dp.data(), ds.data(), s.tq, s.tk);
    for (float& x : ds) x *= scale;
    GemmF32(s.tq, s.d, s.tk, ds.data(), s.tk, false, k + b * s.tk * s.d, s.d, false, dq + b * s.tq * s.d,
            s.d, false, threads);
    GemmF32(s.tk, s.d, s.tq, ds.data(), s.tk, true, q + b * s.tq * s.d, s.d, false, dk + b * s.tk * s.d,
            s.d, false, threads);
  }
}

}  // namespace podbench::kernels
