// Every GEMM variant in kernels/gemm/gemm_manifest.inc against the scalar
// reference, over awkward shapes, strides, transposes and thread counts, and
// the dispatched GEMM. Variants the CPU (or PODBENCH_CPU_ISA) cannot run, and
// oneDNN where it has no implementation that meets the contract, are skipped.
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cstdlib>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/bf16.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_driver.h"

namespace podbench::kernels {
namespace {

struct Shape {
  std::int64_t m, n, k;
  bool trans_a = false, trans_b = false, accumulate = false;
  int threads = 1;
};

std::string ShapeName(const Shape& s) {
  return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
         (s.trans_a ? "_ta" : "") + (s.trans_b ? "_tb" : "") + (s.accumulate ? "_acc" : "") +
         "_t" + std::to_string(s.threads);
}

void PrintTo(const Shape& s, std::ostream* os) { *os << ShapeName(s); }

// Awkward sizes around the register tiles (6, 14, 16, 32) and the depth blocks
// (256, 512, 1024), plus a few medium ones that exercise several cache blocks.
// The 2-thread ones pack the operand both threads read together (A when n >=
// m, B otherwise): over several depth blocks with an odd last one, and with a
// part-filled last micro-panel.
const Shape kShapes[] = {
    {1, 1, 1},         {7, 7, 7},           {1, 129, 7},         {129, 1, 33},
    {6, 16, 1},        {13, 17, 300},       {15, 33, 257, true}, {29, 31, 513, false, true},
    {129, 129, 129, true, true, true, 2}, {200, 150, 90, false, false, true, 2},
    {257, 300, 520, false, false, false, 2}, {5, 1000, 64, false, false, false, 2},
    {9, 40, 1100, true, false, true, 1}, {301, 100, 1025, false, true, true, 2},
    {5, 1000, 129, false, false, false, 2},
};

template <typename T>
std::vector<T> Random(std::int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<T> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = T(dist(rng));
  return v;
}

GemmProblem Problem(const Shape& s, const void* a, const void* b, float* c) {
  GemmProblem p;
  p.m = s.m;
  p.n = s.n;
  p.k = s.k;
  // Row-major storage with padded leading dimensions, read transposed if asked.
  const std::int64_t lda = (s.trans_a ? s.m : s.k) + 3, ldb = (s.trans_b ? s.k : s.n) + 5;
  p.a = a;
  p.rsa = s.trans_a ? 1 : lda;
  p.csa = s.trans_a ? lda : 1;
  p.b = b;
  p.rsb = s.trans_b ? 1 : ldb;
  p.csb = s.trans_b ? ldb : 1;
  p.c = c;
  p.ldc = s.n + 2;
  p.accumulate = s.accumulate;
  return p;
}

// The skip message when `v` cannot run `s` here; "" when it can.
std::string CannotRun(const GemmVariant& v, const Shape& s) {
  if (!CpuSupports(v.isa)) return std::string("this CPU cannot run ") + IsaName(v.isa);
  std::vector<float> c(std::size_t(s.m * (s.n + 2)));
  std::vector<char> a(std::size_t(4 * (s.m + 3) * (s.k + 3))), b(std::size_t(4 * (s.k + 5) * (s.n + 5)));
  if (!v.Runs(Problem(s, a.data(), b.data(), c.data()), s.threads)) {
    return std::string(v.name) + " has no implementation for this problem here";
  }
  return "";
}

void CheckVariant(const GemmVariant& v, const Shape& s) {
  std::mt19937 rng(std::uint32_t(s.m * 131 + s.n * 7 + s.k));
  const std::int64_t a_elems = (s.trans_a ? s.k * (s.m + 3) : s.m * (s.k + 3));
  const std::int64_t b_elems = (s.trans_b ? s.n * (s.k + 5) : s.k * (s.n + 5));
  const std::int64_t c_elems = s.m * (s.n + 2);
  std::vector<float> c0 = Random<float>(c_elems, rng);
  std::vector<float> c_ref = c0, c_got = c0;
  double tol;
  if (v.dtype == GemmDtype::kF32) {
    auto a = Random<float>(a_elems, rng);
    auto b = Random<float>(b_elems, rng);
    ReferenceGemm(GemmDtype::kF32).fn(Problem(s, a.data(), b.data(), c_ref.data()), 1);
    v.fn(Problem(s, a.data(), b.data(), c_got.data()), s.threads);
    tol = 4e-6 * double(s.k + 2);
  } else {
    auto a = Random<Bf16>(a_elems, rng);
    auto b = Random<Bf16>(b_elems, rng);
    ReferenceGemm(GemmDtype::kBf16).fn(Problem(s, a.data(), b.data(), c_ref.data()), 1);
    v.fn(Problem(s, a.data(), b.data(), c_got.data()), s.threads);
    tol = 4e-6 * double(s.k + 2);
  }
  for (std::int64_t i = 0; i < s.m; ++i) {
    for (std::int64_t j = 0; j < s.n + 2; ++j) {
      const std::size_t idx = std::size_t(i * (s.n + 2) + j);
      if (j >= s.n) {
        ASSERT_EQ(c_got[idx], c0[idx]) << "wrote past column n at (" << i << ", " << j << ")";
      } else {
        ASSERT_NEAR(c_got[idx], c_ref[idx], tol) << "at (" << i << ", " << j << ")";
      }
    }
  }
}

class GemmVariantTest : public ::testing::TestWithParam<std::tuple<std::size_t, Shape>> {};

TEST_P(GemmVariantTest, MatchesScalarReference) {
  const GemmVariant& v = GemmVariants()[std::get<0>(GetParam())];
  if (const std::string why = CannotRun(v, std::get<1>(GetParam())); !why.empty()) GTEST_SKIP() << why;
  CheckVariant(v, std::get<1>(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(
    Manifest, GemmVariantTest,
    ::testing::Combine(::testing::Range<std::size_t>(0, GemmVariants().size()),
                       ::testing::ValuesIn(kShapes)),
    [](const auto& param_info) {
      return std::string(GemmVariants()[std::get<0>(param_info.param)].name) + "_" +
             ShapeName(std::get<1>(param_info.param));
    });

TEST(GemmReferenceTest, HandComputedF32) {
  const float a[] = {1, 2, 3, 4, 5, 6};        // 2 x 3
  const float b[] = {7, 8, 9, 10, 11, 12};     // 3 x 2
  float c[4] = {100, 100, 100, 100};
  GemmF32(2, 2, 3, a, 3, false, b, 2, false, c, 2);
  EXPECT_EQ(c[0], 58);
  EXPECT_EQ(c[1], 64);
  EXPECT_EQ(c[2], 139);
  EXPECT_EQ(c[3], 154);
  GemmF32(2, 2, 3, a, 3, false, b, 2, false, c, 2, /*accumulate=*/true);
  EXPECT_EQ(c[0], 116);
  EXPECT_EQ(c[3], 308);
}

TEST(GemmReferenceTest, Bf16ProductsAreExactAndAccumulateInF32) {
  // 1 + 2^-7 is a bf16; its square 1 + 2^-6 + 2^-14 needs fp32 (not bf16) to hold.
  const Bf16 x(1.0f + 1.0f / 128);
  ASSERT_EQ(x.ToFloat(), 1.0f + 1.0f / 128);
  int checked = 0;
  for (const GemmVariant& v : GemmVariants()) {
    float c = 0;
    GemmProblem p;
    p.m = p.n = p.k = 1;
    p.a = &x;
    p.b = &x;
    p.rsa = p.rsb = 1;
    p.c = &c;
    p.ldc = 1;
    if (v.dtype != GemmDtype::kBf16 || !v.Runs(p, 1)) continue;
    v.fn(p, 1);
    EXPECT_EQ(c, 1.0f + 1.0f / 64 + 1.0f / 16384) << v.name;
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

TEST(GemmReferenceTest, ZeroDepthClearsOrKeeps) {
  float c[2] = {3, 4};
  GemmF32(1, 2, 0, nullptr, 1, false, nullptr, 2, false, c, 2, true);
  EXPECT_EQ(c[0], 3);
  GemmF32(1, 2, 0, nullptr, 1, false, nullptr, 2, false, c, 2, false);
  EXPECT_EQ(c[0], 0);
  EXPECT_EQ(c[1], 0);
}

// The packer that rounds an fp32 B to bf16 values (the widening variants'
// convolution lowering) gives RoundToBf16's bits, specials included.
TEST(GemmPackingTest, RoundingPackerMatchesRoundToBf16) {
  std::vector<float> b;
  for (std::uint32_t bits : {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x3f808000u,
                             0x3f818000u, 0x3f807fffu, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                             0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f80ffffu, 0xff800001u}) {
    b.push_back(std::bit_cast<float>(bits));
  }
  std::mt19937 rng(9);
  while (b.size() < 3 * 37) b.push_back(std::bit_cast<float>(std::uint32_t(rng())));
  GemmProblem p;
  p.k = 3;
  p.n = 37;
  p.b = b.data();
  p.rsb = 37;
  p.csb = 1;
  const int nr = 16;
  const std::int64_t kcp = 3, panels = (37 + nr - 1) / nr;
  std::vector<float> packed(std::size_t(panels * nr * kcp), 1.0f);
  gemm_internal::PackB_F32RoundedToBf16(p, 0, 0, 37, 3, kcp, nr, packed.data());
  for (std::int64_t q = 0; q < 3; ++q) {
    for (std::int64_t j = 0; j < 37; ++j) {
      const float got = packed[std::size_t((j / nr) * kcp * nr + q * nr + j % nr)];
      const float want = RoundToBf16(b[std::size_t(q * 37 + j)]);
      ASSERT_EQ(std::bit_cast<std::uint32_t>(got), std::bit_cast<std::uint32_t>(want))
          << "input bits " << std::hex << std::bit_cast<std::uint32_t>(b[std::size_t(q * 37 + j)]);
    }
  }
}

// fp32 bit patterns whose rounding to bf16 is easy to get wrong: ties to
// even either way, just below a tie, the largest finite value (rounds to
// infinity), infinities, quiet and signalling NaNs (payloads), denormals, zero.
constexpr std::array<std::uint32_t, 12> kRoundingSpecials = {
    0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x7f7fffffu, 0x7f800000u, 0xff800000u,
    0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x00000001u, 0x807fffffu, 0x00000000u};

// The portable fp32-rounded pair packer writes the pair packer's panels of
// the operand rounded first (the convolution's filter, rounded once in a
// copy before it, is rounded while packed now): both layouts, odd depth,
// padded depth, partial column panels, the rounding's specials.
TEST(GemmPackingTest, RoundedPairPackerPacksTheRoundedOperand) {
  constexpr std::int64_t kLd = 80, k0 = 1, j0 = 2;
  std::mt19937 rng(23);
  std::vector<float> b(std::size_t(kLd * kLd));
  for (float& x : b) x = std::bit_cast<float>(std::uint32_t(rng()));
  for (std::size_t i = 0; i < kRoundingSpecials.size(); ++i) {
    b[std::size_t(k0 * kLd + j0) + i] = std::bit_cast<float>(kRoundingSpecials[i]);
  }
  std::vector<Bf16> rounded(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) rounded[i] = Bf16(b[i]);
  for (bool transposed : {false, true}) {
    GemmProblem p, q;
    p.b = b.data();
    q.b = rounded.data();
    p.rsb = q.rsb = transposed ? 1 : kLd;
    p.csb = q.csb = transposed ? kLd : 1;
    for (int nr : {16, 32}) {
      for (std::int64_t nc : {std::int64_t{1}, std::int64_t{nr - 3}, std::int64_t{2 * nr + 5}}) {
        for (std::int64_t kc : {1, 6, 33}) {
          const std::int64_t kcp = kc + kc % 2 + 2;
          std::vector<std::uint32_t> want(std::size_t((nc + nr - 1) / nr * nr * kcp / 2)), got(want.size());
          gemm_internal::PackB_Bf16Pairs(q, k0, j0, nc, kc, kcp, nr, want.data());
          gemm_internal::PackB_F32RoundedToBf16Pairs(p, k0, j0, nc, kc, kcp, nr, got.data());
          ASSERT_EQ(got, want) << (transposed ? "transposed " : "") << "nr " << nr << " nc " << nc << " kc " << kc;
        }
      }
    }
  }
}

// Memory that ends where an unreadable page begins: a packer that reads past
// the rows it was given faults (masked vector loads do not, for masked lanes).
class GuardedBuffer {
 public:
  explicit GuardedBuffer(std::size_t bytes) : page_(std::size_t(sysconf(_SC_PAGESIZE))) {
    size_ = ((bytes + page_ - 1) / page_ + 1) * page_;
    base_ = static_cast<char*>(mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED) std::abort();
    if (mprotect(base_ + size_ - page_, page_, PROT_NONE) != 0) std::abort();
  }
  ~GuardedBuffer() { munmap(base_, size_); }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  // The last n elements before the guard page.
  template <typename T>
  T* Last(std::size_t n) {
    return reinterpret_cast<T*>(base_ + size_ - page_) - n;
  }

 private:
  std::size_t page_, size_;
  char* base_;
};

// The ISAs with vector packers that this CPU has, each with its packers.
struct PackerIsa {
  Isa isa;
  const gemm_internal::VectorPackers* vp;
};
std::vector<PackerIsa> VectorPackerIsas() {
  std::vector<PackerIsa> out;
  for (Isa isa : {Isa::kAvx512f, Isa::kAvx2Fma}) {
    if (CpuSupports(isa)) out.push_back({isa, gemm_internal::VectorPackersFor(isa)});
  }
  return out;
}

// VectorPackersFor gives each ISA this CPU has the packers of its register
// width (none below AVX2).
TEST(GemmPackingTest, EachIsaHasItsOwnVectorPackers) {
  EXPECT_EQ(gemm_internal::VectorPackersFor(Isa::kScalar), nullptr);
  for (Isa isa : {Isa::kAvx2Fma, Isa::kAvx512f, Isa::kAvx512Bf16, Isa::kAmxBf16}) {
    if (!CpuSupports(isa)) continue;
    const gemm_internal::VectorPackers* vp = gemm_internal::VectorPackersFor(isa);
    ASSERT_NE(vp, nullptr) << IsaName(isa);
    EXPECT_EQ(vp->width, isa == Isa::kAvx2Fma ? 8 : 16) << IsaName(isa);
  }
}

// The register-transposing A packers write the portable packers' panels byte
// for byte (padding included): every tile size they take, partial row
// panels, depth tails shorter than a register tile, padded depth, offsets
// into A, and the layouts they hand back (transposed A, mr above the tile).
TEST(GemmPackingTest, VectorAPackersWriteThePortablePanels) {
  struct Packer {
    std::string name;
    bool bf16;
    gemm_internal::PackAFn fn, portable;
    int max_mr;
  };
  std::vector<Packer> packers;
  for (const PackerIsa& is : VectorPackerIsas()) {
    const std::string isa = IsaName(is.isa);
    packers.push_back({isa + " pack_a_f32", false, is.vp->pack_a_f32, gemm_internal::PackA_F32, is.vp->width});
    packers.push_back(
        {isa + " pack_a_bf16_to_f32", true, is.vp->pack_a_bf16_to_f32, gemm_internal::PackA_Bf16ToF32, is.vp->width});
  }
  if (packers.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  // An 80 x 80 A holds rows i0 + mc and depth k0 + kcp in either layout.
  constexpr std::int64_t kLd = 80, i0 = 5, k0 = 3;
  std::mt19937 rng(11);
  const std::vector<float> af = Random<float>(kLd * kLd, rng);
  const std::vector<Bf16> ab = Random<Bf16>(kLd * kLd, rng);
  for (const Packer& pk : packers) {
    for (bool transposed : {false, true}) {
      GemmProblem p;
      p.a = pk.bf16 ? static_cast<const void*>(ab.data()) : af.data();
      p.rsa = transposed ? 1 : kLd;
      p.csa = transposed ? kLd : 1;
      for (int mr : {1, 3, pk.max_mr / 2 + 1, pk.max_mr - 2, pk.max_mr, pk.max_mr + 4}) {
        for (std::int64_t mc : {std::int64_t{1}, std::int64_t{mr}, std::int64_t{3 * mr + 2}}) {
          for (std::int64_t kc : {1, 7, 16, 37, 64}) {
            // Unpadded depth (a store past the panel would show) and padded.
            for (std::int64_t kcp : {kc + kc % 2, kc + kc % 2 + 2}) {
              const std::size_t panel = std::size_t((mc + mr - 1) / mr * mr * kcp);
              std::vector<float> want(panel + 16, -7.0f), got(panel + 16, -7.0f);
              pk.portable(p, i0, k0, mc, kc, kcp, mr, want.data());
              pk.fn(p, i0, k0, mc, kc, kcp, mr, got.data());
              for (std::size_t e = 0; e < want.size(); ++e) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(got[e]), std::bit_cast<std::uint32_t>(want[e]))
                    << pk.name << (transposed ? " transposed" : "") << " mr " << mr << " mc " << mc << " kc " << kc
                    << " kcp " << kcp << ": element " << e << " of " << panel
                    << (e >= panel ? " (past the panel)" : "");
              }
            }
          }
        }
      }
    }
  }
}

// The vector B packers (fp32 copied, bf16 widened, fp32 rounded to bf16
// values) write the portable ones' panels byte for byte: random bit patterns
// and the rounding's special values, partial column panels, padded depth,
// offsets into B; transposed B goes to the portable ones.
TEST(GemmPackingTest, VectorBPackersWriteThePortablePanels) {
  const std::vector<PackerIsa> isas = VectorPackerIsas();
  if (isas.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  constexpr std::int64_t kLd = 90, k0 = 2, j0 = 3;
  std::mt19937 rng(3);
  std::vector<float> b;
  while (b.size() < std::size_t(kLd * kLd)) b.push_back(std::bit_cast<float>(std::uint32_t(rng())));
  // The specials where the first packed row reads them, in either layout.
  for (std::size_t i = 0; i < kRoundingSpecials.size(); ++i) {
    b[std::size_t(k0 * kLd + j0) + i] = std::bit_cast<float>(kRoundingSpecials[i]);
    b[std::size_t(j0 * kLd + k0) + i * std::size_t(kLd)] = std::bit_cast<float>(kRoundingSpecials[i]);
  }
  // The bf16 operand: the top halves of the same words (random bf16 bits, and
  // the specials' bf16 NaNs and infinities).
  std::vector<Bf16> bb(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) bb[i] = Bf16::FromBits(std::uint16_t(std::bit_cast<std::uint32_t>(b[i]) >> 16));
  for (const PackerIsa& is : isas) {
    struct Packer {
      const char* name;
      gemm_internal::PackBFn portable, fn;
      const void* b;
    };
    const Packer packers[] = {
        {"fp32", gemm_internal::PackB_F32, is.vp->pack_b_f32, b.data()},
        {"bf16 widened", gemm_internal::PackB_Bf16ToF32, is.vp->pack_b_bf16_to_f32, bb.data()},
        {"fp32 rounded", gemm_internal::PackB_F32RoundedToBf16, is.vp->pack_b_f32_rounded, b.data()},
        {"fp32 rounded to pairs", gemm_internal::PackB_F32RoundedToBf16Pairs, is.vp->pack_b_f32_rounded_pairs,
         b.data()},
    };
    for (const Packer& pk : packers) {
      for (bool transposed : {false, true}) {
        GemmProblem p;
        p.b = pk.b;
        p.rsb = transposed ? 1 : kLd;
        p.csb = transposed ? kLd : 1;
        const std::int64_t nr = 2 * is.vp->width;  // the kernels' (32 and 16)
        for (std::int64_t nc : {std::int64_t{1}, nr - 3, nr, 2 * nr + 5}) {
          for (std::int64_t kc : {1, 6, 33}) {
            for (std::int64_t kcp : {kc, kc + 3}) {
              const std::size_t panel = std::size_t((nc + nr - 1) / nr * nr * kcp);
              std::vector<float> want(panel + 8, -7.0f), got(panel + 8, -7.0f);
              pk.portable(p, k0, j0, nc, kc, kcp, int(nr), want.data());
              pk.fn(p, k0, j0, nc, kc, kcp, int(nr), got.data());
              for (std::size_t e = 0; e < want.size(); ++e) {
                ASSERT_EQ(std::bit_cast<std::uint32_t>(got[e]), std::bit_cast<std::uint32_t>(want[e]))
                    << IsaName(is.isa) << " " << pk.name << (transposed ? " transposed" : "") << " nc " << nc
                    << " kc " << kc << " kcp " << kcp << ": element " << e << " of " << panel;
              }
            }
          }
        }
      }
    }
  }
}

// The vector bf16-pair packers (the vdpbf16ps kernel's panels) write the
// portable packers' panels byte for byte: random bit patterns (NaNs and
// denormals among them: the words are moved, never converted), odd depths
// (the last pair half zero), padded depth, partial row and column panels,
// offsets into the operands, and the layouts they hand back (transposed
// operands, mr above the register width, nr not a multiple of it).
TEST(GemmPackingTest, VectorPairPackersWriteThePortablePanels) {
  const std::vector<PackerIsa> isas = VectorPackerIsas();
  if (isas.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  constexpr std::int64_t kLd = 90, o0 = 3, o1 = 5;  // odd offsets: pairs that straddle 32-bit words
  std::mt19937 rng(17);
  std::vector<std::uint16_t> bits(std::size_t(kLd * kLd));
  for (auto& x : bits) x = std::uint16_t(rng());
  for (const PackerIsa& is : isas) {
    const int w = is.vp->width;
    for (bool transposed : {false, true}) {
      GemmProblem p;
      p.a = p.b = bits.data();
      p.rsa = p.rsb = transposed ? 1 : kLd;
      p.csa = p.csb = transposed ? kLd : 1;
      for (std::int64_t kc : {1, 2, 7, 32, 33, 2 * w + 3}) {
        for (std::int64_t kcp : {kc + kc % 2, kc + kc % 2 + 4}) {
          // Both packers' panels of one operand: (o0, o1) its offsets in the
          // packers' order, `extent` rows (A) or columns (B) in tiles of
          // `tile`, sentinels past the panel. (A's and B's packers have one
          // signature.)
          auto same_panels = [&](const char* which, gemm_internal::PackAFn portable, gemm_internal::PackAFn vector,
                                 std::int64_t off0, std::int64_t off1, std::int64_t extent, int tile) {
            const std::size_t panel = std::size_t((extent + tile - 1) / tile * tile * kcp / 2);
            std::vector<std::uint32_t> want(panel + 16, 0xdeadbeefu), got(panel + 16, 0xdeadbeefu);
            portable(p, off0, off1, extent, kc, kcp, tile, want.data());
            vector(p, off0, off1, extent, kc, kcp, tile, got.data());
            EXPECT_EQ(got, want) << IsaName(is.isa) << " " << which << (transposed ? " transposed" : "") << " tile "
                                 << tile << " extent " << extent << " kc " << kc << " kcp " << kcp;
            return got == want;
          };
          for (int mr : {1, 5, w - 2, w, w + 2}) {  // A: rows from o0, depth from o1
            for (std::int64_t mc : {std::int64_t{1}, std::int64_t{mr}, std::int64_t{2 * mr + 3}}) {
              ASSERT_TRUE(same_panels("A", gemm_internal::PackA_Bf16Pairs, is.vp->pack_a_bf16_pairs, o0, o1, mc, mr));
            }
          }
          for (int nr : {w, 2 * w, w + 3}) {  // B: depth from o1, columns from o0
            for (std::int64_t nc : {std::int64_t{1}, std::int64_t{nr - 3}, std::int64_t{nr}, std::int64_t{2 * nr + 5}}) {
              ASSERT_TRUE(same_panels("B", gemm_internal::PackB_Bf16Pairs, is.vp->pack_b_bf16_pairs, o1, o0, nc, nr));
            }
          }
        }
      }
    }
  }
}

// The register transposes under the implicit-im2col packer: out[t * mr + j]
// = src[j][t], rounded with RoundToBf16's bits (ties, NaNs, infinities,
// denormals) when asked, zero rows up to mr, nothing written past len rows of
// the panel; rows from unrelated places, lengths around the tile widths.
TEST(GemmPackingTest, RegisterTransposesMatchElementByElement) {
  const std::vector<PackerIsa> isas = VectorPackerIsas();
  if (isas.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  // Row j reads 64-float block j: the specials first (rotated by j), then random bits.
  std::mt19937 rng(5);
  std::vector<float> pool(16 * 64);
  for (std::size_t e = 0; e < pool.size(); ++e) {
    const std::size_t block = e / 64, at = e % 64;
    pool[e] = std::bit_cast<float>(at < kRoundingSpecials.size()
                                       ? kRoundingSpecials[(at + block) % kRoundingSpecials.size()]
                                       : std::uint32_t(rng()));
  }
  for (const PackerIsa& is : isas) {
    const int max_mr = is.vp->width;
    for (int mr : {1, 6, max_mr - 2, max_mr}) {
      for (int rows : {1, mr / 2 + 1, mr}) {
        if (rows > mr) continue;
        for (std::int64_t len : {1, 5, 8, 15, 16, 17, 31, 32, 33, 40, 64}) {
          for (bool round : {false, true}) {
            // At a stride of ld floats; nothing else written.
            for (std::int64_t ld : {std::int64_t{mr}, std::int64_t{mr} + 5}) {
              const float* src[16];
              for (int j = 0; j < rows; ++j) src[j] = pool.data() + std::size_t(j) * 64;
              std::vector<float> got(std::size_t(len * ld + 8), -3.0f);
              is.vp->transpose_rows(src, rows, len, mr, ld, round, got.data());
              for (std::size_t e = 0; e < got.size(); ++e) {
                const std::int64_t t = std::int64_t(e) / ld, j = std::int64_t(e) % ld;
                float want = -3.0f;
                if (t < len && j < mr) want = j >= rows ? 0.0f : round ? RoundToBf16(src[j][t]) : src[j][t];
                ASSERT_EQ(std::bit_cast<std::uint32_t>(got[e]), std::bit_cast<std::uint32_t>(want))
                    << IsaName(is.isa) << " mr " << mr << " ld " << ld << " rows " << rows << " len " << len
                    << (round ? " rounded" : "") << ": depth " << t << " row " << j;
              }
            }
          }
          // The pair form: words of RoundFromFloat's bits (or, unrounded, of
          // each value's top half), an odd length's last high half zero, at a
          // stride of ld words; nothing else written.
          const float* src[16];
          for (int j = 0; j < rows; ++j) src[j] = pool.data() + std::size_t(j) * 64;
          const std::int64_t words = (len + 1) / 2;
          for (std::int64_t ld : {std::int64_t{mr}, std::int64_t{mr} + 3}) {
            for (bool round : {true, false}) {
              auto bits = [&](float x) -> std::uint32_t {
                return round ? Bf16::RoundFromFloat(x) : std::bit_cast<std::uint32_t>(x) >> 16;
              };
              std::vector<std::uint32_t> got(std::size_t(words * ld + 8), 0xdeadbeefu);
              is.vp->transpose_pairs(src, rows, len, mr, ld, round, got.data());
              for (std::size_t e = 0; e < got.size(); ++e) {
                const std::int64_t w = std::int64_t(e) / ld, j = std::int64_t(e) % ld;
                std::uint32_t want = 0xdeadbeefu;
                if (w < words && j < mr) {
                  const std::uint32_t lo = j < rows ? bits(src[j][2 * w]) : 0u;
                  const std::uint32_t hi = j < rows && 2 * w + 1 < len ? bits(src[j][2 * w + 1]) : 0u;
                  want = lo | hi << 16;
                }
                ASSERT_EQ(got[e], want) << IsaName(is.isa) << " pairs, mr " << mr << " ld " << ld << " rows " << rows
                                        << " len " << len << (round ? " rounded" : "") << ": word " << w << " row "
                                        << j;
              }
            }
          }
        }
      }
    }
  }
}

// The vector packers read no further than the rows they are given: each
// operand here ends at an unreadable page (row lengths that leave a tail
// shorter than a vector), and the panels still match the portable packers.
TEST(GemmPackingTest, VectorPackersReadNothingPastTheirRows) {
  const std::vector<PackerIsa> isas = VectorPackerIsas();
  if (isas.empty()) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512F";
  for (const PackerIsa& is : isas) {
    const gemm_internal::VectorPackers& vp = *is.vp;
    const int mr = vp.width - 2;
    for (std::int64_t kc : {1, 2, 5, 13, 16, 37}) {  // tails shorter than a vector, and none
      // A: mr rows of kc, the last one ending at the guard.
      GuardedBuffer fa(std::size_t(mr * kc) * sizeof(float)), ba(std::size_t(mr * kc) * sizeof(Bf16));
      float* af = fa.Last<float>(std::size_t(mr * kc));
      Bf16* ab = ba.Last<Bf16>(std::size_t(mr * kc));
      for (std::int64_t e = 0; e < mr * kc; ++e) af[e] = float(e % 29) - 14.5f, ab[e] = Bf16(af[e]);
      for (bool bf16 : {false, true}) {
        GemmProblem p;
        p.a = bf16 ? static_cast<const void*>(ab) : af;
        p.rsa = kc;
        p.csa = 1;
        std::vector<float> want(std::size_t(mr * kc)), got(want.size());
        (bf16 ? gemm_internal::PackA_Bf16ToF32 : gemm_internal::PackA_F32)(p, 0, 0, mr, kc, kc, mr, want.data());
        (bf16 ? vp.pack_a_bf16_to_f32 : vp.pack_a_f32)(p, 0, 0, mr, kc, kc, mr, got.data());
        EXPECT_EQ(got, want) << IsaName(is.isa) << (bf16 ? " bf16" : " f32") << " A, kc " << kc;
      }
      // The transpose: every row is the last kc floats before the guard.
      const float* rows[16];
      for (int j = 0; j < mr; ++j) rows[j] = af + (mr - 1) * kc;
      std::vector<float> t(std::size_t(mr * kc));
      vp.transpose_rows(rows, mr, kc, mr, mr, true, t.data());
      for (std::int64_t q = 0; q < kc; ++q) {
        ASSERT_EQ(t[std::size_t(q * mr)], RoundToBf16(rows[0][q])) << IsaName(is.isa) << " transpose, len " << kc;
      }
      std::vector<std::uint32_t> tp(std::size_t(mr * (kc + 1) / 2));
      vp.transpose_pairs(rows, mr, kc, mr, mr, true, tp.data());
      for (std::int64_t q = 0; q < kc; ++q) {
        ASSERT_EQ(tp[std::size_t(q / 2 * mr)] >> (16 * (q % 2)) & 0xffffu, Bf16::RoundFromFloat(rows[0][q]))
            << IsaName(is.isa) << " pair transpose, len " << kc;
      }
      // The bf16 pair packers on the same rows (an odd depth's last pair holds one bf16).
      {
        GemmProblem p;
        p.a = ab;
        p.rsa = kc;
        p.csa = 1;
        const std::int64_t kcp = kc + kc % 2;
        std::vector<std::uint32_t> want(std::size_t(mr * kcp / 2)), got(want.size());
        gemm_internal::PackA_Bf16Pairs(p, 0, 0, mr, kc, kcp, mr, want.data());
        vp.pack_a_bf16_pairs(p, 0, 0, mr, kc, kcp, mr, got.data());
        EXPECT_EQ(got, want) << IsaName(is.isa) << " bf16 pairs A, kc " << kc;
      }
      // B: kc rows of nc columns (nc not a multiple of the vector width), the last one ending at the guard.
      const std::int64_t nc = vp.width + 3, nr = 2 * vp.width;
      GuardedBuffer fb(std::size_t(kc * nc) * sizeof(float));
      float* b = fb.Last<float>(std::size_t(kc * nc));
      for (std::int64_t e = 0; e < kc * nc; ++e) b[e] = float(e % 31) * 0.37f;
      GemmProblem p;
      p.b = b;
      p.rsb = nc;
      p.csb = 1;
      std::vector<float> want(std::size_t(nr * kc)), got(want.size());
      gemm_internal::PackB_F32RoundedToBf16(p, 0, 0, nc, kc, kc, int(nr), want.data());
      vp.pack_b_f32_rounded(p, 0, 0, nc, kc, kc, int(nr), got.data());
      EXPECT_EQ(got, want) << IsaName(is.isa) << " B, kc " << kc;
      gemm_internal::PackB_F32(p, 0, 0, nc, kc, kc, int(nr), want.data());
      vp.pack_b_f32(p, 0, 0, nc, kc, kc, int(nr), got.data());
      EXPECT_EQ(got, want) << IsaName(is.isa) << " fp32 B, kc " << kc;
      {
        const std::int64_t kcp = kc + kc % 2;
        std::vector<std::uint32_t> wantp(std::size_t(nr * kcp / 2)), gotp(wantp.size());
        gemm_internal::PackB_F32RoundedToBf16Pairs(p, 0, 0, nc, kc, kcp, int(nr), wantp.data());
        vp.pack_b_f32_rounded_pairs(p, 0, 0, nc, kc, kcp, int(nr), gotp.data());
        EXPECT_EQ(gotp, wantp) << IsaName(is.isa) << " fp32 rounded to pairs B, kc " << kc;
      }
      // The widening and pair packers on bf16 rows of the same shape.
      GuardedBuffer gb(std::size_t(kc * nc) * sizeof(Bf16));
      Bf16* bb = gb.Last<Bf16>(std::size_t(kc * nc));
      for (std::int64_t e = 0; e < kc * nc; ++e) bb[e] = Bf16(b[e]);
      p.b = bb;
      gemm_internal::PackB_Bf16ToF32(p, 0, 0, nc, kc, kc, int(nr), want.data());
      vp.pack_b_bf16_to_f32(p, 0, 0, nc, kc, kc, int(nr), got.data());
      EXPECT_EQ(got, want) << IsaName(is.isa) << " bf16 widened B, kc " << kc;
      const std::int64_t kcp = kc + kc % 2;
      std::vector<std::uint32_t> wantp(std::size_t(nr * kcp / 2)), gotp(wantp.size());
      gemm_internal::PackB_Bf16Pairs(p, 0, 0, nc, kc, kcp, int(nr), wantp.data());
      vp.pack_b_bf16_pairs(p, 0, 0, nc, kc, kcp, int(nr), gotp.data());
      EXPECT_EQ(gotp, wantp) << IsaName(is.isa) << " bf16 pairs B, kc " << kc;
    }
  }
}

TEST(GemmDispatchTest, DispatchedVariantRunsTheProblemAndIsNoReferenceWhenOthersCan) {
  const std::int64_t n = 64;
  std::vector<float> af(n * n, 0.5f), c(n * n);
  std::vector<Bf16> ab(n * n, Bf16(0.5f));
  for (GemmDtype d : {GemmDtype::kF32, GemmDtype::kBf16}) {
    const void* a = d == GemmDtype::kF32 ? static_cast<const void*>(af.data()) : ab.data();
    const GemmProblem p = RowMajorProblem(n, n, n, a, n, false, a, n, false, c.data(), n, false);
    const GemmVariant& v = DispatchedGemm(d, p, 1);
    EXPECT_EQ(v.dtype, d);
    EXPECT_TRUE(v.Runs(p, 1)) << v.name;
    if (CpuSupports(Isa::kAvx2Fma)) {
      EXPECT_FALSE(v.reference()) << v.name;
    }
    EXPECT_EQ(ReferenceGemm(d).isa, Isa::kScalar);
    RunGemm(d, p, 1);
    for (float x : c) ASSERT_EQ(x, 16.0f);  // 64 products of 0.25: exact in any order
  }
}

}  // namespace
}  // namespace podbench::kernels

namespace podbench::kernels {
namespace {

TEST(GemmThreadingTest, ConcurrentCallersGetCorrectResults) {
  // Two emulated cores calling the threaded GEMM at once share one pool.
  const std::int64_t n = 96;
  std::vector<float> a(n * n), b(n * n);
  for (std::int64_t i = 0; i < n * n; ++i) {
    a[std::size_t(i)] = float(i % 7) - 3;
    b[std::size_t(i)] = float(i % 5) - 2;
  }
  std::vector<float> want(n * n);
  ReferenceGemm(GemmDtype::kF32).fn(
      GemmProblem{n, n, n, a.data(), n, 1, b.data(), n, 1, want.data(), n, false}, 1);
  std::vector<std::vector<float>> got(4, std::vector<float>(n * n));
  std::vector<std::thread> callers;
  for (auto& c : got) {
    callers.emplace_back([&, out = c.data()] {
      for (int rep = 0; rep < 5; ++rep) GemmF32(n, n, n, a.data(), n, false, b.data(), n, false, out, n, false, 2);
    });
  }
  for (auto& t : callers) t.join();
  for (const auto& c : got) EXPECT_EQ(c, want);  // small integers: exact in any order
}

}  // namespace
}  // namespace podbench::kernels
