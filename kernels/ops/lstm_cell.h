// One LSTM cell step (GNMT), gate order i, f, g, o:
//   z = x Wx + h Wh + b;  i, f, o = sigmoid;  g = tanh;
//   c' = f * c + i * g;   h' = o * tanh(c').
// No forget bias is added (Google's v0.6 GNMT cell adds none:
// ../shared/reference/gnmt-v0.6.md section 1).
//
// The gate matmuls (forward x Wx, h Wh; backward the weight and input
// gradients) run with `prec`: Precision::kBf16 is the MXU contract (operands
// rounded to bf16, fp32 accumulation: kernels/ops/matmul.h), kF32 the fp32
// GEMM. The elementwise gates are fp32, vectorised and dispatched by ISA
// (VectorOps::lstm_gates / lstm_gates_grad, kernels/ops/vector_ops.h: the
// same bits on every ISA).
#pragma once

#include <cstdint>

#include "kernels/conv/conv2d.h"

namespace podbench::kernels {

struct LstmShape {
  std::int64_t batch = 1, input = 1, hidden = 1;
};

// x [batch, input], h, c [batch, hidden]; w [input + hidden, 4 * hidden] (the
// Wx rows then the Wh rows); b [4 * hidden]. Writes gates [batch, 4 * hidden]
// (activated i, f, g, o, kept for backward), c_out and h_out [batch, hidden].
// REQUIRES: outputs do not alias inputs.
void LstmCellForward(const LstmShape& s, const float* x, const float* h, const float* c,
                     const float* w, const float* b, float* gates, float* c_out, float* h_out,
                     int threads = 0, Precision prec = Precision::kF32);

// dh_out, dc_out: gradients arriving at h' and c'. Writes dx, dh, dc (the
// previous state's gradients, overwritten) and adds into dw, db. dx may be
// null (no input gradient wanted).
void LstmCellBackward(const LstmShape& s, const float* x, const float* h, const float* c,
                      const float* w, const float* gates, const float* c_out, const float* dh_out,
                      const float* dc_out, float* dx, float* dh, float* dc, float* dw, float* db,
                      int threads = 0, Precision prec = Precision::kF32);

}  // namespace podbench::kernels
