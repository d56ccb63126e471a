// MatMul on strided views: every transpose combination, accumulation, fp32
// and the MXU contract (bf16-rounded operands, fp32 sums), against a direct
// double-precision loop over the same (rounded) operands.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/bf16.h"
#include "kernels/ops/matmul.h"

namespace podbench::kernels {
namespace {

TEST(MatMulTest, MatchesTheDirectLoopForEveryLayout) {
  std::mt19937 rng(11);
  std::normal_distribution<float> nd;
  const std::int64_t m = 37, n = 21, k = 19, pad = 3;
  for (auto prec : {Precision::kF32, Precision::kBf16}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        for (bool acc : {false, true}) {
          // Operands stored with a leading dimension wider than their rows.
          const std::int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
          std::vector<float> a((ta ? k : m) * lda), b((tb ? n : k) * ldb), c(m * ldc);
          for (float& x : a) x = nd(rng);
          for (float& x : b) x = nd(rng);
          for (float& x : c) x = nd(rng);
          const std::vector<float> c0 = c;
          MatMul(m, n, k, a.data(), lda, ta, b.data(), ldb, tb, c.data(), ldc, acc, prec);
          auto r = [&](float x) { return prec == Precision::kBf16 ? RoundToBf16(x) : x; };
          for (std::int64_t i = 0; i < m; ++i) {
            for (std::int64_t j = 0; j < n; ++j) {
              double want = acc ? c0[i * ldc + j] : 0.0;
              for (std::int64_t p = 0; p < k; ++p) {
                want += double(r(ta ? a[p * lda + i] : a[i * lda + p])) * r(tb ? b[j * ldb + p] : b[p * ldb + j]);
              }
              ASSERT_NEAR(c[i * ldc + j], want, 1e-4 * (1 + std::abs(want)))
                  << "bf16 " << (prec == Precision::kBf16) << " ta " << ta << " tb " << tb << " acc " << acc;
            }
            for (std::int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], c0[i * ldc + j]) << "padding written";
          }
        }
      }
    }
  }
}

TEST(MatMulTest, Bf16RoundsOperandsLikeBf16) {
  // 1 + 2^-9 is not a bf16 value: it rounds to 1 (ties to even), so the
  // product is exactly 1 under the MXU contract and not in fp32.
  const float a = 1.f + 0x1.0p-9f, b = 1.f;
  float c = 0;
  MatMul(1, 1, 1, &a, 1, false, &b, 1, false, &c, 1, false, Precision::kBf16);
  EXPECT_EQ(c, 1.f);
  MatMul(1, 1, 1, &a, 1, false, &b, 1, false, &c, 1, false, Precision::kF32);
  EXPECT_EQ(c, a);
  const float nan = std::nanf("");
  MatMul(1, 1, 1, &nan, 1, false, &b, 1, false, &c, 1, false, Precision::kBf16);
  EXPECT_TRUE(std::isnan(c));
}

}  // namespace
}  // namespace podbench::kernels
