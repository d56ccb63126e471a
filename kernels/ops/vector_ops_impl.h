// Private to kernels/ops: the one body of the VectorOps loops, included by
// each vector_ops__<isa>.cc. Everything here has internal linkage (anonymous
// namespace) and calls no inline library template, so no function compiled
// for one ISA can be picked by the linker for another.
#pragma once

#include <cstdint>

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

VectorOps MakeVectorOps() {
  return {Add,         Mul,           Axpy,    Scale,           Relu<false>, Relu<true>,
          ReluGrad,    AddBias,       BnStats, BnBackwardStats, BnAffine,    BnBackwardAffine<false>,
          BnBackwardAffine<true>, MaxInto, ArgmaxInto};
}

}  // namespace
}  // namespace podbench::kernels::ops_internal
