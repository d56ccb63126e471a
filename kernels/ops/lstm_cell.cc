#include "kernels/ops/lstm_cell.h"

#include <cmath>
#include <vector>

#include "kernels/gemm/gemm.h"

namespace podbench::kernels {
namespace {
float Sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }
}  // namespace

void LstmCellForward(const LstmShape& s, const float* x, const float* h, const float* c,
                     const float* w, const float* b, float* gates, float* c_out, float* h_out,
                     int threads) {
  const std::int64_t g4 = 4 * s.hidden, H = s.hidden;
  GemmF32(s.batch, g4, s.input, x, s.input, false, w, g4, false, gates, g4, false, threads);
  GemmF32(s.batch, g4, H, h, H, false, w + s.input * g4, g4, false, gates, g4, true, threads);
  for (std::int64_t r = 0; r < s.batch; ++r) {
    float* z = gates + r * g4;
    for (std::int64_t j = 0; j < H; ++j) {
      const float i = Sigmoid(z[j] + b[j]);
      const float f = Sigmoid(z[H + j] + b[H + j]);
      const float g = std::tanh(z[2 * H + j] + b[2 * H + j]);
      const float o = Sigmoid(z[3 * H + j] + b[3 * H + j]);
      z[j] = i;
      z[H + j] = f;
      z[2 * H + j] = g;
      z[3 * H + j] = o;
      const float cn = f * c[r * H + j] + i * g;
      c_out[r * H + j] = cn;
      h_out[r * H + j] = o * std::tanh(cn);
    }
  }
}

void LstmCellBackward(const LstmShape& s, const float* x, const float* h, const float* c,
                      const float* w, const float* gates, const float* c_out, const float* dh_out,
                      const float* dc_out, float* dx, float* dh, float* dc, float* dw, float* db,
                      int threads) {
  const std::int64_t g4 = 4 * s.hidden, H = s.hidden;
  std::vector<float> dz(std::size_t(s.batch * g4));
  for (std::int64_t r = 0; r < s.batch; ++r) {
    const float* a = gates + r * g4;
    float* d = dz.data() + r * g4;
    for (std::int64_t j = 0; j < H; ++j) {
      const float i = a[j], f = a[H + j], g = a[2 * H + j], o = a[3 * H + j];
      const float tc = std::tanh(c_out[r * H + j]);
      const float ghat = dh_out[r * H + j];
      const float dcn = dc_out[r * H + j] + ghat * o * (1 - tc * tc);
      d[j] = dcn * g * i * (1 - i);
      d[H + j] = dcn * c[r * H + j] * f * (1 - f);
      d[2 * H + j] = dcn * i * (1 - g * g);
      d[3 * H + j] = ghat * tc * o * (1 - o);
      dc[r * H + j] = dcn * f;
      db[j] += d[j];
      db[H + j] += d[H + j];
      db[2 * H + j] += d[2 * H + j];
      db[3 * H + j] += d[3 * H + j];
    }
  }
  // dW_x += x^T dz; dW_h += h^T dz; dx = dz Wx^T; dh = dz Wh^T.
  GemmF32(s.input, g4, s.batch, x, s.input, true, dz.data(), g4, false, dw, g4, true, threads);
  GemmF32(H, g4, s.batch, h, H, true, dz.data(), g4, false, dw + s.input * g4, g4, true, threads);
  GemmF32(s.batch, s.input, g4, dz.data(), g4, false, w, g4, true, dx, s.input, false, threads);
  GemmF32(s.batch, H, g4, dz.data(), g4, false, w + s.input * g4, g4, true, dh, H, false, threads);
}

}  // namespace podbench::kernels
