// Private to kernels/ops: the one body of the VectorOps loops, included by
// each vector_ops__<isa>.cc. Everything here has internal linkage (anonymous
// namespace) and calls no inline library template, so no function compiled
// for one ISA can be picked by the linker for another.
#pragma once

#include <cstdint>
#include <cstring>

#include "kernels/bf16.h"
#include "kernels/ops/vector_ops.h"

namespace podbench::kernels::ops_internal {
namespace {

using std::int64_t;

void Add(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}
void Mul(const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}
void Axpy(float alpha, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}
void Scale(float alpha, const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
}
// kRound: the output rounded to a bf16 value (Values::kBf16; RoundToBf16Branchless
// has internal linkage, so this ISA's build of it is the one called here).
template <bool kRound>
float Out(float v) {
  return kRound ? RoundToBf16Branchless(v) : v;
}

template <bool kRound>
void Relu(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = Out<kRound>(x[i] > 0 ? x[i] : 0.0f);
}
void ReluGrad(const float* x, const float* dy, float* dx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dx[i] = x[i] > 0 ? dy[i] : 0.0f;
}
void AddBias(const float* bias, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float* row = y + r * cols;
    for (int64_t j = 0; j < cols; ++j) row[j] += bias[j];
  }
}

// Channel counts that divide kBlock run on blocks of kBlock flattened
// elements, channel j at offsets j, j + c, ... within a block.
constexpr int64_t kBlock = 64;

bool Flat(int64_t c) { return c < kBlock && kBlock % c == 0; }

// p[k] for k < kBlock repeats v[0..c).
void Replicate(const float* v, int64_t c, float* p) {
  for (int64_t k = 0; k < kBlock; ++k) p[k] = v[k % c];
}

// Adds the kBlock partial sums into c sums (k in ascending order).
void Fold(const double* part, int64_t c, double* sums) {
  for (int64_t k = 0; k < kBlock; ++k) sums[k % c] += part[k];
}

void BnStats(const float* x, int64_t rows, int64_t c, double* __restrict sums) {
  const int64_t n = rows * c;
  if (Flat(c)) {
    double s[kBlock] = {}, q[kBlock] = {};
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      for (int64_t k = 0; k < kBlock; ++k) {
        const double v = x[i + k];
        s[k] += v;
        q[k] += v * v;
      }
    }
    for (int64_t k = 0; i + k < n; ++k) {
      const double v = x[i + k];
      s[k] += v;
      q[k] += v * v;
    }
    Fold(s, c, sums);
    Fold(q, c, sums + c);
    return;
  }
  double* __restrict sq = sums + c;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * c;
    for (int64_t j = 0; j < c; ++j) {
      const double v = row[j];
      sums[j] += v;
      sq[j] += v * v;
    }
  }
}

void BnBackwardStats(const float* x, const float* dy, int64_t rows, int64_t c, double* __restrict sums) {
  const int64_t n = rows * c;
  if (Flat(c)) {
    double s[kBlock] = {}, d[kBlock] = {};
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      for (int64_t k = 0; k < kBlock; ++k) {
        const double g = dy[i + k];
        s[k] += g;
        d[k] += g * x[i + k];
      }
    }
    for (int64_t k = 0; i + k < n; ++k) {
      const double g = dy[i + k];
      s[k] += g;
      d[k] += g * x[i + k];
    }
    Fold(s, c, sums);
    Fold(d, c, sums + c);
    return;
  }
  double* __restrict dot = sums + c;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * c;
    const float* g = dy + r * c;
    for (int64_t j = 0; j < c; ++j) {
      const double gj = g[j];
      sums[j] += gj;
      dot[j] += gj * row[j];
    }
  }
}

void BnAffine(const float* x, int64_t rows, int64_t c, const float* m, const float* a, const float* b,
              float* __restrict y) {
  if (Flat(c)) {
    float pm[kBlock], pa[kBlock], pb[kBlock];
    Replicate(m, c, pm);
    Replicate(a, c, pa);
    Replicate(b, c, pb);
    const int64_t n = rows * c;
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      for (int64_t k = 0; k < kBlock; ++k) y[i + k] = (x[i + k] - pm[k]) * pa[k] + pb[k];
    }
    for (int64_t k = 0; i + k < n; ++k) y[i + k] = (x[i + k] - pm[k]) * pa[k] + pb[k];
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * c;
    float* out = y + r * c;
    for (int64_t j = 0; j < c; ++j) out[j] = (row[j] - m[j]) * a[j] + b[j];
  }
}

template <bool kRound>
void BnBackwardAffine(const float* x, const float* dy, int64_t rows, int64_t c, const float* m, const float* k,
                      const float* a, const float* b, float* __restrict dx) {
  if (Flat(c)) {
    float pm[kBlock], pk[kBlock], pa[kBlock], pb[kBlock];
    Replicate(m, c, pm);
    Replicate(k, c, pk);
    Replicate(a, c, pa);
    Replicate(b, c, pb);
    const int64_t n = rows * c;
    int64_t i = 0;
    for (; i + kBlock <= n; i += kBlock) {
      for (int64_t e = 0; e < kBlock; ++e) {
        dx[i + e] = Out<kRound>(dy[i + e] * pk[e] + (x[i + e] - pm[e]) * pa[e] + pb[e]);
      }
    }
    for (int64_t e = 0; i + e < n; ++e) dx[i + e] = Out<kRound>(dy[i + e] * pk[e] + (x[i + e] - pm[e]) * pa[e] + pb[e]);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * c;
    const float* g = dy + r * c;
    float* out = dx + r * c;
    for (int64_t j = 0; j < c; ++j) out[j] = Out<kRound>(g[j] * k[j] + (row[j] - m[j]) * a[j] + b[j]);
  }
}

void MaxInto(const float* x, float* __restrict y, int64_t c) {
  for (int64_t j = 0; j < c; ++j) y[j] = y[j] < x[j] ? x[j] : y[j];
}

void ArgmaxInto(const float* x, int64_t offset, float* __restrict best, int64_t* __restrict at, int64_t c) {
  for (int64_t j = 0; j < c; ++j) {
    const bool more = x[j] > best[j];
    best[j] = more ? x[j] : best[j];
    at[j] = more ? offset : at[j];
  }
}

// e^x by Cephes expf's reduction and polynomial (x = n ln2 + r, |r| <=
// ln2 / 2; ln2 split in two for an exact n ln2), with plain arithmetic and
// bit casts only, so it inlines into a loop the vectoriser can widen; x is
// clamped to [-87.3, 88.3] (no inf, no denormal: a saturating gate).
inline float ExpF(float x) {
  x = x < -87.3f ? -87.3f : (x > 88.3f ? 88.3f : x);
  const float t = x * 1.44269504088896341f + 0.5f;
  int n = static_cast<int>(t);
  n = static_cast<float>(n) > t ? n - 1 : n;  // floor
  const float fn = static_cast<float>(n);
  const float r = (x - fn * 0.693359375f) - fn * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = p * (r * r) + r + 1.0f;
  const std::int32_t bits = (n + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}
inline float SigmoidF(float x) { return 1.0f / (1.0f + ExpF(-x)); }
inline float TanhF(float x) { return 1.0f - 2.0f / (ExpF(2.0f * x) + 1.0f); }

void LstmGates(const float* b, float* __restrict z, const float* c, float* __restrict c_out,
               float* __restrict h_out, int64_t rows, int64_t h) {
  for (int64_t r = 0; r < rows; ++r) {
    float* zi = z + r * 4 * h;
    float* zf = zi + h;
    float* zg = zf + h;
    float* zo = zg + h;
    const float* cr = c + r * h;
    float* cn = c_out + r * h;
    float* hn = h_out + r * h;
    for (int64_t j = 0; j < h; ++j) {
      const float i = SigmoidF(zi[j] + b[j]);
      const float f = SigmoidF(zf[j] + b[h + j]);
      const float g = TanhF(zg[j] + b[2 * h + j]);
      const float o = SigmoidF(zo[j] + b[3 * h + j]);
      zi[j] = i;
      zf[j] = f;
      zg[j] = g;
      zo[j] = o;
      const float cj = f * cr[j] + i * g;
      cn[j] = cj;
      hn[j] = o * TanhF(cj);
    }
  }
}

void Tanh(const float* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = TanhF(x[i]);
}

void LstmGatesGrad(const float* gates, const float* c, const float* c_out, const float* dh_out,
                   const float* dc_out, float* __restrict dz, float* __restrict dc, int64_t rows, int64_t h) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* a = gates + r * 4 * h;
    float* d = dz + r * 4 * h;
    const int64_t o = r * h;
    for (int64_t j = 0; j < h; ++j) {
      const float i = a[j], f = a[h + j], g = a[2 * h + j], og = a[3 * h + j];
      const float tc = TanhF(c_out[o + j]);
      const float gh = dh_out[o + j];
      const float dcn = dc_out[o + j] + gh * og * (1.0f - tc * tc);
      d[j] = dcn * g * i * (1.0f - i);
      d[h + j] = dcn * c[o + j] * f * (1.0f - f);
      d[2 * h + j] = dcn * i * (1.0f - g * g);
      d[3 * h + j] = gh * tc * og * (1.0f - og);
      dc[o + j] = dcn * f;
    }
  }
}

VectorOps MakeVectorOps() {
  return {Add,         Mul,           Axpy,    Scale,           Relu<false>, Relu<true>,
          ReluGrad,    AddBias,       BnStats, BnBackwardStats, BnAffine,    BnBackwardAffine<false>,
          BnBackwardAffine<true>, MaxInto, ArgmaxInto, LstmGates, Tanh, LstmGatesGrad};
}

}  // namespace
}  // namespace podbench::kernels::ops_internal
