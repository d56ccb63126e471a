// Every convolution variant of kernels/conv/conv_manifest.inc and the
// dispatched passes against the direct-loop reference, and the reference's
// backward passes against finite differences. Variants the CPU (or
// PODBENCH_CPU_ISA) cannot run are skipped.
#include <bit>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "kernels/conv/conv2d.h"
#include "kernels/conv/conv_variants.h"
#include "kernels/dispatch/dispatch.h"
#include "tests/kernels/grad_check.h"

namespace podbench::kernels {
namespace {

using testing::Dot;
using testing::ExpectGradientMatches;
using testing::RandomVec;

struct Case {
  const char* name;
  Conv2dShape s;
  int threads;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name << "_t" << c.threads; }

Conv2dShape Make(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t oc,
                 std::int64_t k, std::int64_t stride, std::int64_t pad) {
  Conv2dShape s;
  s.n = n;
  s.h = h;
  s.w = w;
  s.c = c;
  s.oc = oc;
  s.kh = s.kw = k;
  s.stride = stride;
  s.pad = pad;
  return s;
}

const Case kCases[] = {
    {"pointwise_1x1", Make(2, 5, 7, 3, 5, 1, 1, 0), 1},
    {"pointwise_1x1_s2", Make(1, 7, 7, 9, 4, 1, 2, 0), 2},
    {"k3_s1_p1_odd", Make(2, 7, 5, 3, 7, 3, 1, 1), 1},
    {"k3_s2_p1", Make(1, 9, 9, 5, 6, 3, 2, 1), 2},
    {"k7_s2_p3_stem", Make(1, 13, 11, 3, 8, 7, 2, 3), 2},
    {"k3_many_rows", Make(3, 17, 19, 16, 33, 3, 1, 1), 2},
    {"k3_deep", Make(1, 6, 6, 129, 17, 3, 1, 0), 1},
    // Even output channels at stride 1: the data gradient's pair panels are
    // packed from the filter in place (runs of pairs cut at each tap), here
    // past one depth block (9 x 130 > 1024, the block boundary mid-tap) and
    // over a partial column panel (40 input channels).
    {"k3_even_oc_deep", Make(1, 6, 5, 40, 130, 3, 1, 1), 2},
    {"k3_even_oc", Make(2, 9, 8, 20, 34, 3, 1, 1), 1},
};

class Conv2dTest : public ::testing::TestWithParam<std::tuple<Case, Precision>> {};

void ExpectClose(const std::vector<float>& got, const std::vector<float>& want, double tol,
                 const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], tol) << what << " at " << i;
}

// Random x, filter and dy of shape s (seeds seed, seed + 1, seed + 2); with
// bf16_values, all three rounded to bf16 values (Values::kBf16).
struct Operands {
  std::size_t nx, nf, ny;
  std::vector<float> x, f, dy;
  Operands(const Conv2dShape& s, std::uint32_t seed, bool bf16_values = false)
      : nx(std::size_t(s.n * s.h * s.w * s.c)), nf(std::size_t(s.kh * s.kw * s.c * s.oc)),
        ny(std::size_t(s.n * s.OutH() * s.OutW() * s.oc)), x(RandomVec(nx, seed)), f(RandomVec(nf, seed + 1)),
        dy(RandomVec(ny, seed + 2)) {
    if (!bf16_values) return;
    RoundToBf16(x.data(), x.data(), long(nx));
    RoundToBf16(f.data(), f.data(), long(nf));
    RoundToBf16(dy.data(), dy.data(), long(ny));
  }
  const float* In0(ConvPass pass) const { return pass == ConvPass::kBackwardData ? dy.data() : x.data(); }
  const float* In1(ConvPass pass) const { return pass == ConvPass::kBackwardFilter ? dy.data() : f.data(); }
};

// The three passes of one implementation (the dispatched one when `variant`
// is null) against the reference.
void CheckPasses(const Case& c, Precision prec, const ConvVariant* variant) {
  const Conv2dShape& s = c.s;
  Operands o(s, 1);
  auto &x = o.x, &f = o.f, &dy = o.dy;
  const std::size_t nx = o.nx, nf = o.nf, ny = o.ny;
  const double tol = 1e-5 * double(s.kh * s.kw * std::max(s.c, s.oc) * s.n) + 1e-5;
  auto run = [&](ConvPass pass, const float* in0, const float* in1, float* out) {
    if (variant == nullptr) {
      RunDispatchedConv(pass, s, {in0, in1, out}, prec, c.threads);
      return true;
    }
    if (!CpuSupports(variant->isa) || !variant->supports(*variant, pass, s, c.threads)) return false;
    variant->run(*variant, pass, s, {in0, in1, out}, c.threads);
    return true;
  };
  int ran = 0;
  std::vector<float> y(ny, 7.0f), y_ref(ny);
  if (run(ConvPass::kForward, x.data(), f.data(), y.data())) {
    Conv2dForwardRef(s, x.data(), f.data(), y_ref.data(), prec);
    ExpectClose(y, y_ref, tol, "forward");
    ++ran;
  }
  std::vector<float> dx(nx, 7.0f), dx_ref(nx);
  if (run(ConvPass::kBackwardData, dy.data(), f.data(), dx.data())) {
    Conv2dBackwardDataRef(s, dy.data(), f.data(), dx_ref.data(), prec);
    ExpectClose(dx, dx_ref, tol, "backward data");
    ++ran;
  }
  std::vector<float> df(nf, 7.0f), df_ref(nf);
  if (run(ConvPass::kBackwardFilter, x.data(), dy.data(), df.data())) {
    Conv2dBackwardFilterRef(s, x.data(), dy.data(), df_ref.data(), prec);
    ExpectClose(df, df_ref, tol * double(s.OutH() * s.OutW()), "backward filter");
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << variant->name << " cannot run this shape here";
}

TEST_P(Conv2dTest, DispatchedMatchesReference) {
  const auto& [c, prec] = GetParam();
  CheckPasses(c, prec, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Shapes, Conv2dTest,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Precision::kF32, Precision::kBf16)),
                         [](const auto& param_info) {
                           return std::string(std::get<0>(param_info.param).name) +
                                  (std::get<1>(param_info.param) == Precision::kF32 ? "_f32" : "_bf16");
                         });

// Every variant of each precision: (variant index, shape).
class ConvVariantF32Test : public ::testing::TestWithParam<std::tuple<std::size_t, Case>> {};
class ConvVariantBf16Test : public ::testing::TestWithParam<std::tuple<std::size_t, Case>> {};

void CheckVariant(Precision prec, std::size_t index, const Case& c) {
  const ConvVariant& v = ConvVariants(prec)[index];
  if (!CpuSupports(v.isa)) GTEST_SKIP() << "this CPU cannot run " << IsaName(v.isa);
  CheckPasses(c, prec, &v);
}

TEST_P(ConvVariantF32Test, MatchesReference) {
  CheckVariant(Precision::kF32, std::get<0>(GetParam()), std::get<1>(GetParam()));
}
TEST_P(ConvVariantBf16Test, MatchesReference) {
  CheckVariant(Precision::kBf16, std::get<0>(GetParam()), std::get<1>(GetParam()));
}

// On activations and a filter that hold bf16 values, a bf16 variant told so
// (Values::kBf16: it then takes them as they are), of either or both, gives
// the bits it gives when it rounds them itself, in every pass.
void CheckBf16Activations(const ConvVariant* variant, const Case& c) {
  const Conv2dShape& s = c.s;
  const Operands o(s, 11, /*bf16_values=*/true);
  int ran = 0;
  for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter}) {
    if (!variant->supports(*variant, pass, s, c.threads)) continue;
    const std::size_t n_out = std::size_t(ConvOutElems(pass, s));
    std::vector<float> rounding(n_out, 7.0f);
    variant->run(*variant, pass, s, {o.In0(pass), o.In1(pass), rounding.data(), Values::kF32, Values::kF32},
                 c.threads);
    for (const auto& [act, wei] : {std::pair{Values::kBf16, Values::kF32}, std::pair{Values::kF32, Values::kBf16},
                                   std::pair{Values::kBf16, Values::kBf16}}) {
      std::vector<float> taken(n_out, -7.0f);
      variant->run(*variant, pass, s, {o.In0(pass), o.In1(pass), taken.data(), act, wei}, c.threads);
      for (std::size_t i = 0; i < n_out; ++i) {
        ASSERT_EQ(std::bit_cast<std::uint32_t>(taken[i]), std::bit_cast<std::uint32_t>(rounding[i]))
            << ConvPassName(pass) << " at " << i << " (activations promised: " << (act == Values::kBf16)
            << ", filter promised: " << (wei == Values::kBf16) << ")";
      }
    }
    ++ran;
  }
  if (ran == 0) GTEST_SKIP() << variant->name << " cannot run this shape here";
}

class ConvVariantBf16ActivationsTest : public ::testing::TestWithParam<std::tuple<std::size_t, Case>> {};

TEST_P(ConvVariantBf16ActivationsTest, TakesThemAsTheyAreWithTheSameResult) {
  const ConvVariant& v = ConvVariants(Precision::kBf16)[std::get<0>(GetParam())];
  if (!CpuSupports(v.isa)) GTEST_SKIP() << "this CPU cannot run " << IsaName(v.isa);
  CheckBf16Activations(&v, std::get<1>(GetParam()));
}

// The cases above, and one whose lowered matrix is cut into several column
// chunks (m = 9216 rows of 144: two chunks of bf16 columns, three of fp32
// ones, which the widening lowerings cut for their fp32 twins), where the
// filter gradient's sums follow the chunks.
const Case kBf16ActivationCases[] = {
    kCases[0], kCases[1], kCases[2], kCases[3], kCases[4], kCases[5], kCases[6], kCases[7], kCases[8],
    {"k3_chunked", Make(4, 48, 48, 16, 16, 3, 1, 1), 2},
};

// The variants that run the bf16 pass on fp32 arithmetic (oneDNN's fp32
// primitive, the lowerings over the widening GEMMs) honour the promise: told
// that activations which are not bf16 values are, they take them as they
// are, so the result differs from the rounding run. So does the vdpbf16ps
// lowering's implicit packer, which then takes their top halves, in the
// forward and data-gradient passes (its filter gradient converts). (A
// variant that ignored Values::kBf16 would give the same result.)
TEST(Conv2dBf16ActivationsTest, FpThirtyTwoArithmeticVariantsSkipTheRounding) {
  const Case& c = kCases[5];  // k3_many_rows
  const Conv2dShape& s = c.s;
  const Operands o(s, 31);  // not bf16 values
  int checked = 0;
  for (const ConvVariant& v : ConvVariants(Precision::kBf16)) {
    const bool fp32_arithmetic = v.name == "onednn_f32" || v.name == "im2col+bf16_gemm__avx2_fma_6x16" ||
                                 v.name == "im2col+bf16_gemm__avx512f_14x32";
    const bool implicit_pairs = v.name == "im2col+bf16_gemm__avx512bf16_14x32";
    if ((!fp32_arithmetic && !implicit_pairs) || !CpuSupports(v.isa)) continue;
    for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter}) {
      if (!v.supports(v, pass, s, c.threads) || (implicit_pairs && pass == ConvPass::kBackwardFilter)) continue;
      const std::size_t n_out = std::size_t(ConvOutElems(pass, s));
      std::vector<float> rounding(n_out), taken(n_out);
      v.run(v, pass, s, {o.In0(pass), o.In1(pass), rounding.data(), Values::kF32}, c.threads);
      v.run(v, pass, s, {o.In0(pass), o.In1(pass), taken.data(), Values::kBf16}, c.threads);
      EXPECT_NE(taken, rounding) << v.name << " " << ConvPassName(pass) << ": Values::kBf16 changed nothing";
      ++checked;
      // A filter said to hold bf16 values is taken as it is by the widening
      // lowerings (oneDNN's fold and the pair packers round it anyway).
      if (pass == ConvPass::kBackwardFilter || v.name == "onednn_f32" || implicit_pairs) continue;
      v.run(v, pass, s, {o.In0(pass), o.In1(pass), taken.data(), Values::kF32, Values::kBf16}, c.threads);
      EXPECT_NE(taken, rounding) << v.name << " " << ConvPassName(pass) << ": a bf16 filter changed nothing";
      ++checked;
    }
  }
  if (checked == 0) GTEST_SKIP() << "no fp32-arithmetic bf16 variant can run here";
}

// On bf16 activations and a bf16 filter, the bf16 variants on fp32
// arithmetic are fp32 convolutions, bit for bit: the lowerings over the
// widening GEMMs those over their fp32 twins, oneDNN's fp32 primitive on bf16
// values oneDNN's fp32 convolution. They do no work that fp32 does not.
TEST(Conv2dBf16ActivationsTest, OnBf16OperandsFpThirtyTwoArithmeticVariantsAreTheFpThirtyTwoPass) {
  int checked = 0;
  for (const Case& c : {kCases[5], kBf16ActivationCases[std::size(kBf16ActivationCases) - 1]}) {
    const Conv2dShape& s = c.s;
    const Operands o(s, 41, /*bf16_values=*/true);
    for (const ConvVariant& v : ConvVariants(Precision::kBf16)) {
      std::string twin_name = v.name == "onednn_f32" ? "onednn" : v.name;
      if (const auto at = twin_name.find("bf16_gemm__"); at != std::string::npos) twin_name.replace(at, 4, "f32");
      const bool fp32_arithmetic = v.name == "onednn_f32" || v.name == "im2col+bf16_gemm__avx2_fma_6x16" ||
                                   v.name == "im2col+bf16_gemm__avx512f_14x32";
      if (!fp32_arithmetic || !CpuSupports(v.isa)) continue;
      const ConvVariant* twin = nullptr;
      for (const ConvVariant& f : ConvVariants(Precision::kF32)) {
        if (f.name == twin_name) twin = &f;
      }
      ASSERT_NE(twin, nullptr) << v.name << ": no fp32 variant " << twin_name;
      for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter}) {
        if (!v.supports(v, pass, s, c.threads) || !twin->supports(*twin, pass, s, c.threads)) continue;
        const std::size_t n_out = std::size_t(ConvOutElems(pass, s));
        std::vector<float> bf16(n_out, 7.0f), fp32(n_out, -7.0f);
        v.run(v, pass, s, {o.In0(pass), o.In1(pass), bf16.data(), Values::kBf16, Values::kBf16}, c.threads);
        twin->run(*twin, pass, s, {o.In0(pass), o.In1(pass), fp32.data()}, c.threads);
        for (std::size_t i = 0; i < n_out; ++i) {
          ASSERT_EQ(std::bit_cast<std::uint32_t>(bf16[i]), std::bit_cast<std::uint32_t>(fp32[i]))
              << v.name << " against " << twin->name << ", " << c.name << " " << ConvPassName(pass) << " at " << i;
        }
        ++checked;
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no fp32-arithmetic bf16 variant can run here";
}

// The dispatched passes on bf16 activations and filters meet the contract,
// and their classes are ranked apart from those of operands that need
// rounding (".bf16in", ".bf16w": their variants do less work there).
TEST(Conv2dBf16ActivationsTest, DispatchedPassesMeetTheContractInClassesOfTheirOwn) {
  const Case& c = kCases[5];  // k3_many_rows
  const Conv2dShape& s = c.s;
  const Operands o(s, 21, /*bf16_values=*/true);
  const auto &x = o.x, &f = o.f, &dy = o.dy;
  const std::size_t nx = o.nx, nf = o.nf, ny = o.ny;
  const double tol = 1e-5 * double(s.kh * s.kw * std::max(s.c, s.oc) * s.n) + 1e-5;
  std::vector<float> y(ny), y_ref(ny), dx(nx), dx_ref(nx), df(nf), df_ref(nf);
  Conv2dForward(s, x.data(), f.data(), y.data(), Precision::kBf16, c.threads, Values::kBf16, Values::kBf16);
  Conv2dForwardRef(s, x.data(), f.data(), y_ref.data(), Precision::kBf16);
  ExpectClose(y, y_ref, tol, "forward");
  Conv2dBackwardData(s, dy.data(), f.data(), dx.data(), Precision::kBf16, c.threads, Values::kBf16, Values::kBf16);
  Conv2dBackwardDataRef(s, dy.data(), f.data(), dx_ref.data(), Precision::kBf16);
  ExpectClose(dx, dx_ref, tol, "backward data");
  Conv2dBackwardFilter(s, x.data(), dy.data(), df.data(), Precision::kBf16, c.threads, Values::kBf16);
  Conv2dBackwardFilterRef(s, x.data(), dy.data(), df_ref.data(), Precision::kBf16);
  ExpectClose(df, df_ref, tol * double(s.OutH() * s.OutW()), "backward filter");
  auto ends_with = [](const std::string& t, std::string_view end) {
    return t.size() > end.size() && t.compare(t.size() - end.size(), end.size(), end) == 0;
  };
  int both = 0, activations_only = 0;
  for (const auto& [pc, ranking] : dispatch::Dispatcher::Global().Decisions()) {
    const std::string& t = pc.text;
    if (pc.family == dispatch::Family::kConvBf16) {
      both += ends_with(t, ".bf16in.bf16w") && t.starts_with(ConvPassName(ConvPass::kBackwardFilter)) == false;
      activations_only += ends_with(t, ".bf16in") && t.starts_with(ConvPassName(ConvPass::kBackwardFilter));
    } else {
      EXPECT_EQ(t.find("bf16"), std::string::npos) << t;
    }
  }
  EXPECT_GE(both, 2) << "a class each for the forward and data-gradient passes";
  EXPECT_GE(activations_only, 1) << "a class for the filter gradient (whose filter is its output)";
}

// On operands that all hold bf16 values, the bf16 class's fp32-arithmetic
// contenders are fp32 variants: only the one that is the fp32 class's winner
// competes, beside the contenders on a bf16 unit.
TEST(Conv2dBf16ActivationsTest, OnBf16OperandsOnlyTheFpThirtyTwoWinnersEquivalentCompetes) {
  const Case& c = kCases[6];
  const Conv2dShape& s = c.s;
  const Operands o(s, 23, /*bf16_values=*/true);
  std::vector<float> y(o.ny), dx(o.nx), df(o.nf);
  Conv2dForward(s, o.x.data(), o.f.data(), y.data(), Precision::kBf16, c.threads, Values::kBf16, Values::kBf16);
  Conv2dBackwardData(s, o.dy.data(), o.f.data(), dx.data(), Precision::kBf16, c.threads, Values::kBf16,
                     Values::kBf16);
  Conv2dBackwardFilter(s, o.x.data(), o.dy.data(), df.data(), Precision::kBf16, c.threads, Values::kBf16);
  // The bf16 variant each fp32 one is on bf16 values.
  auto equivalent = [](const std::string& fp32) {
    if (fp32 == "onednn") return std::string("onednn_f32");
    std::string name = fp32;
    if (const auto at = name.find("f32_gemm__"); at != std::string::npos) name.replace(at, 3, "bf16");
    return name;
  };
  const std::set<std::string> fp32_arithmetic = {"onednn_f32", "im2col+bf16_gemm__avx2_fma_6x16",
                                                 "im2col+bf16_gemm__avx512f_14x32"};
  const auto decisions = dispatch::Dispatcher::Global().Decisions();
  int checked = 0;
  for (const auto& [pc, ranking] : decisions) {
    if (pc.family != dispatch::Family::kConvBf16 || pc.text.find(".bf16in") == std::string::npos) continue;
    const bool filter_gradient = pc.text.starts_with("bwd_filter");
    if (!filter_gradient && pc.text.find(".bf16w") == std::string::npos) continue;
    const std::string fp32_text = pc.text.substr(0, pc.text.find(".bf16in"));
    const dispatch::Ranking* fp32 = nullptr;
    for (const auto& [qc, r] : decisions) {
      if (qc.family == dispatch::Family::kConvF32 && qc.text == fp32_text) fp32 = &r;
    }
    ASSERT_NE(fp32, nullptr) << "no fp32 class " << fp32_text << " for " << pc.text;
    ASSERT_FALSE(fp32->seconds.empty());
    const std::string allowed = equivalent(fp32->seconds.front().first);
    for (const auto& [name, seconds] : ranking.seconds) {
      if (fp32_arithmetic.count(name) != 0) {
        EXPECT_EQ(name, allowed) << pc.text;
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 3) << "a class per pass";
}

std::string VariantTestName(Precision prec, std::size_t index, const Case& c) {
  std::string name = ConvVariants(prec)[index].name + "_" + c.name;
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// (variant index, case) over every variant of `prec` and every case, named after both.
auto EveryVariantAndCase(Precision prec) {
  return ::testing::Combine(::testing::Range<std::size_t>(0, ConvVariants(prec).size()), ::testing::ValuesIn(kCases));
}
template <Precision kPrec>
std::string VariantParamName(const ::testing::TestParamInfo<std::tuple<std::size_t, Case>>& info) {
  return VariantTestName(kPrec, std::get<0>(info.param), std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Manifest, ConvVariantF32Test, EveryVariantAndCase(Precision::kF32),
                         VariantParamName<Precision::kF32>);
INSTANTIATE_TEST_SUITE_P(Manifest, ConvVariantBf16Test, EveryVariantAndCase(Precision::kBf16),
                         VariantParamName<Precision::kBf16>);
INSTANTIATE_TEST_SUITE_P(Manifest, ConvVariantBf16ActivationsTest,
                         ::testing::Combine(::testing::Range<std::size_t>(0, ConvVariants(Precision::kBf16).size()),
                                            ::testing::ValuesIn(kBf16ActivationCases)),
                         VariantParamName<Precision::kBf16>);

TEST(Conv2dReferenceTest, BackwardIsTheGradientOfForward) {
  const Conv2dShape s = Make(1, 5, 4, 2, 3, 3, 2, 1);
  const std::size_t nx = std::size_t(s.n * s.h * s.w * s.c), nf = std::size_t(s.kh * s.kw * s.c * s.oc),
                    ny = std::size_t(s.n * s.OutH() * s.OutW() * s.oc);
  auto x = RandomVec(nx, 4), f = RandomVec(nf, 5), r = RandomVec(ny, 6);
  std::vector<float> y(ny), dx(nx), df(nf);
  auto loss = [&] {
    Conv2dForwardRef(s, x.data(), f.data(), y.data());
    return Dot(y, r);
  };
  Conv2dBackwardDataRef(s, r.data(), f.data(), dx.data());
  Conv2dBackwardFilterRef(s, x.data(), r.data(), df.data());
  ExpectGradientMatches(x, dx, loss, "dx");
  ExpectGradientMatches(f, df, loss, "dfilter");
}

TEST(Conv2dReferenceTest, HandComputed) {
  // 1 image 2x2x1, 2x2 filter of ones, no padding: the sum of the image.
  const Conv2dShape s = Make(1, 2, 2, 1, 1, 2, 1, 0);
  const float x[] = {1, 2, 3, 4}, f[] = {1, 1, 1, 1};
  float y = 0;
  Conv2dForward(s, x, f, &y);
  EXPECT_EQ(y, 10);
  EXPECT_EQ(Conv2dFlops(s), 8);
}

TEST(Conv2dShapeTest, OutputSizeAndValidity) {
  EXPECT_EQ(Make(1, 224, 224, 3, 64, 7, 2, 3).OutH(), 112);
  EXPECT_EQ(Make(1, 56, 56, 64, 64, 3, 2, 1).OutW(), 28);
  EXPECT_FALSE(Make(1, 2, 2, 1, 1, 5, 1, 0).Valid());
  EXPECT_TRUE(Make(1, 2, 2, 1, 1, 5, 1, 2).Valid());
}

}  // namespace
}  // namespace podbench::kernels
