#include "kernels/ops/lstm_cell.h"

#include <cstddef>

#include "kernels/ops/matmul.h"
#include "kernels/ops/vector_ops.h"
#include "kernels/scratch.h"

namespace podbench::kernels {

void LstmCellForward(const LstmShape& s, const float* x, const float* h, const float* c,
                     const float* w, const float* b, float* gates, float* c_out, float* h_out,
                     int threads, Precision prec) {
  const std::int64_t g4 = 4 * s.hidden, H = s.hidden;
  MatMul(s.batch, g4, s.input, x, s.input, false, w, g4, false, gates, g4, false, prec, threads);
  MatMul(s.batch, g4, H, h, H, false, w + s.input * g4, g4, false, gates, g4, true, prec, threads);
  ops_internal::SelectedVectorOps().lstm_gates(b, gates, c, c_out, h_out, s.batch, H);
}

void LstmCellBackward(const LstmShape& s, const float* x, const float* h, const float* c,
                      const float* w, const float* gates, const float* c_out, const float* dh_out,
                      const float* dc_out, float* dx, float* dh, float* dc, float* dw, float* db,
                      int threads, Precision prec) {
  const std::int64_t g4 = 4 * s.hidden, H = s.hidden;
  const ScratchLease lease(std::size_t(s.batch * g4) * sizeof(float));
  float* dz = lease.as<float>();
  const auto& ops = ops_internal::SelectedVectorOps();
  ops.lstm_gates_grad(gates, c, c_out, dh_out, dc_out, dz, dc, s.batch, H);
  for (std::int64_t r = 0; r < s.batch; ++r) ops.add(db, dz + r * g4, db, g4);
  // dW_x += x^T dz; dW_h += h^T dz; dx = dz Wx^T; dh = dz Wh^T.
  MatMul(s.input, g4, s.batch, x, s.input, true, dz, g4, false, dw, g4, true, prec, threads);
  MatMul(H, g4, s.batch, h, H, true, dz, g4, false, dw + s.input * g4, g4, true, prec, threads);
  if (dx != nullptr) MatMul(s.batch, s.input, g4, dz, g4, false, w, g4, true, dx, s.input, false, prec, threads);
  MatMul(s.batch, H, g4, dz, g4, false, w + s.input * g4, g4, true, dh, H, false, prec, threads);
}

}  // namespace podbench::kernels
