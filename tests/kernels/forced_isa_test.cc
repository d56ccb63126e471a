// Under PODBENCH_CPU_ISA=avx2_fma (forced_isa_main.cc): the cap reaches the
// CPU features, the dispatch candidates and oneDNN.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/conv/conv_variants.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm/gemm.h"
#include "kernels/onednn/onednn.h"

namespace podbench::kernels {
namespace {

TEST(ForcedIsaTest, TheCapHidesEverythingAboveAvx2) {
  EXPECT_TRUE(CpuSupports(Isa::kAvx2Fma) || !DetectedCpuFeatures().capped);
  EXPECT_FALSE(CpuSupports(Isa::kAvx512f));
  EXPECT_FALSE(CpuSupports(Isa::kAvx512Bf16));
  EXPECT_FALSE(CpuSupports(Isa::kAmxBf16));
  EXPECT_LE(MaxSupportedIsa(), Isa::kAvx2Fma);
  EXPECT_EQ(DetectedCpuFeatures().flags.find("avx512"), std::string::npos) << DetectedCpuFeatures().flags;
}

TEST(ForcedIsaTest, DispatchPicksOnlyWhatAnAvx2CpuRuns) {
  const std::int64_t n = 96;
  std::vector<float> a(n * n, 0.25f), c(n * n);
  std::vector<Bf16> ab(n * n, Bf16(0.25f));
  const GemmProblem pf = RowMajorProblem(n, n, n, a.data(), n, false, a.data(), n, false, c.data(), n, false);
  const GemmProblem pb = RowMajorProblem(n, n, n, ab.data(), n, false, ab.data(), n, false, c.data(), n, false);
  for (const auto& [d, p] : {std::pair{GemmDtype::kF32, pf}, std::pair{GemmDtype::kBf16, pb}}) {
    const GemmVariant& v = DispatchedGemm(d, p, 1);
    EXPECT_LE(v.isa, Isa::kAvx2Fma) << v.name;
    EXPECT_LE(v.RunsOn(p, 1), Isa::kAvx2Fma) << v.name;
  }
  Conv2dShape s;
  s.n = 2;
  s.h = s.w = 12;
  s.c = s.oc = 16;
  s.kh = s.kw = 3;
  s.pad = 1;
  std::vector<float> x(std::size_t(ConvIn0Elems(ConvPass::kForward, s)), 0.5f);
  std::vector<float> f(std::size_t(ConvIn1Elems(ConvPass::kForward, s)), 0.5f);
  std::vector<float> y(std::size_t(ConvOutElems(ConvPass::kForward, s)));
  for (Precision prec : {Precision::kF32, Precision::kBf16}) {
    const ConvVariant& v = DispatchedConv(ConvPass::kForward, s, {x.data(), f.data(), y.data()}, prec, 1);
    EXPECT_LE(v.runs_on(v, ConvPass::kForward, s, 1), Isa::kAvx2Fma) << v.name;
  }
}

TEST(ForcedIsaTest, OneDnnIsCappedToo) {
  if (!onednn::Available()) GTEST_SKIP() << onednn::UnavailableReason();
  GemmProblem p = RowMajorProblem(64, 64, 64, nullptr, 64, false, nullptr, 64, false, nullptr, 64, false);
  const onednn::Impl f32 = onednn::GemmImpl(p, GemmDtype::kF32, 1);
  EXPECT_TRUE(f32.accepted) << f32.name;
  EXPECT_LE(f32.isa, Isa::kAvx2Fma) << f32.name;
  // oneDNN 2.6 has no bf16 matmul for AVX2; if a later one has, it must run on AVX2.
  const onednn::Impl bf16 = onednn::GemmImpl(p, GemmDtype::kBf16, 1);
  if (bf16.accepted) {
    EXPECT_LE(bf16.isa, Isa::kAvx2Fma) << bf16.name;
  }
}

}  // namespace
}  // namespace podbench::kernels
