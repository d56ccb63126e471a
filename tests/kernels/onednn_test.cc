// kernels/onednn: ParallelRangesOnOnednnThreads covers [0, n) once, in parts
// that start on `align`, no more of them than the threads asked for, none
// shorter than about min_per_part unless there is only one; on oneDNN's
// OpenMP team where the library loads, serially where it does not.
// ConvOnBf16Values is, bit for bit, the fp32 convolution of the inputs
// rounded to bf16 values, including where it rounds the filter while
// putting it in the primitive's layout (padded channel blocks too).
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <mutex>
#include <utility>
#include <vector>

#include "kernels/bf16.h"
#include "kernels/conv/conv2d.h"
#include "kernels/onednn/onednn.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels {
namespace {

TEST(OnednnTest, ParallelRangesOnOnednnThreadsCoverEveryIndexOnce) {
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{17}, std::int64_t{1000}, std::int64_t{100003}}) {
    for (std::int64_t min_part : {std::int64_t{1}, std::int64_t{64}, std::int64_t{1} << 16}) {
      std::vector<std::atomic<int>> hits(static_cast<std::size_t>(n));
      std::mutex mu;
      std::vector<std::pair<std::int64_t, std::int64_t>> parts;
      onednn::ParallelRangesOnOnednnThreads(0, n, min_part, 16, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)].fetch_add(1);
        std::lock_guard<std::mutex> lock(mu);
        parts.emplace_back(b, e);
      });
      for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(hits[static_cast<std::size_t>(i)].load(), 1) << n << " at " << i;
      ASSERT_LE(parts.size(), static_cast<std::size_t>(DefaultThreadPool().threads()));
      if (onednn::Available() && DefaultThreadPool().threads() > 1 && n >= 2 * min_part && n >= 32) {
        EXPECT_GT(parts.size(), 1u) << n << " elements, parts of at least " << min_part << ": split over the team";
      }
      for (auto [b, e] : parts) {
        EXPECT_EQ(b % 16, 0) << n;
        if (parts.size() > 1) {
          EXPECT_GE(e - b, min_part / 2) << n;  // near-equal parts, each about n / t >= min_part
        }
      }
    }
  }
}

// podbench shortens libgomp's spin after a region (kOpenMpSpinCount) unless
// the user chose how OpenMP threads wait or libgomp was loaded first.
TEST(OnednnTest, OpenMpSpinIsShortenedUnlessTheUserChoseOrLibgompCameFirst) {
  const std::string ours = std::to_string(onednn::kOpenMpSpinCount);
  onednn::OpenMpSpinPlan p = onednn::PlanOpenMpSpin(nullptr, nullptr, false);
  EXPECT_EQ(p.spincount, ours);
  EXPECT_EQ(p.setting, "GOMP_SPINCOUNT=" + ours + " (set by podbench)");
  p = onednn::PlanOpenMpSpin("300000", nullptr, false);
  EXPECT_EQ(p.spincount, "");
  EXPECT_EQ(p.setting, "GOMP_SPINCOUNT=300000 (user)");
  p = onednn::PlanOpenMpSpin(nullptr, "passive", false);
  EXPECT_EQ(p.spincount, "");
  EXPECT_EQ(p.setting, "OMP_WAIT_POLICY=passive (user)");
  p = onednn::PlanOpenMpSpin("5", "active", true);
  EXPECT_EQ(p.setting, "GOMP_SPINCOUNT=5 (user)") << "the user's count wins";
  p = onednn::PlanOpenMpSpin(nullptr, nullptr, true);
  EXPECT_EQ(p.spincount, "") << "too late: libgomp read its environment when it loaded";
  EXPECT_EQ(p.setting, "libgomp's default (it was loaded before oneDNN)");
}

// In this process the reported setting is what libgomp found (the sanitizer
// builds link libdnnl, and so libgomp, at start-up: libgomp's default there).
TEST(OnednnTest, TheReportedOpenMpSettingIsTheEnvironment) {
  if (!onednn::Available()) GTEST_SKIP() << "oneDNN is unavailable: " << onednn::UnavailableReason();
  const std::string setting = onednn::OpenMpWaitSetting();
  const char* count = std::getenv("GOMP_SPINCOUNT");
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  if (setting.rfind("libgomp's default", 0) == 0) {
    EXPECT_EQ(count, nullptr) << setting;
    EXPECT_EQ(policy, nullptr) << setting;
  } else if (setting.rfind("OMP_WAIT_POLICY=", 0) == 0) {
    ASSERT_NE(policy, nullptr) << setting;
    EXPECT_EQ(setting, std::string("OMP_WAIT_POLICY=") + policy + " (user)");
  } else {
    ASSERT_NE(count, nullptr) << setting;
    const std::string ours = std::to_string(onednn::kOpenMpSpinCount);
    if (setting == "GOMP_SPINCOUNT=" + ours + " (set by podbench)") {
      EXPECT_EQ(std::string(count), ours);
    } else {
      EXPECT_EQ(setting, std::string("GOMP_SPINCOUNT=") + count + " (user)");
    }
  }
}

// Values whose low 16 bits are random (so rounding moves most of them, ties
// to even included), of magnitude about 2^-3 to 2^2, either sign.
std::vector<float> RoundingInputs(std::int64_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) {
    const std::uint32_t bits = (gen() & 0x8000ffffu) | (0x7cu + gen() % 6u) << 23 | (gen() & 0x7fu) << 16;
    x = std::bit_cast<float>(gen() % 16 == 0 ? (bits & 0xffff0000u) | 0x8000u : bits);
  }
  return v;
}

std::vector<float> Rounded(std::vector<float> v) {
  for (float& x : v) x = RoundToBf16(x);
  return v;
}

TEST(OnednnTest, ConvOnBf16ValuesIsTheF32ConvolutionOfRoundedInputs) {
  if (!onednn::Available()) GTEST_SKIP() << onednn::UnavailableReason();
  // n, h, w, c, oc, kh, kw, stride, pad: channel counts that fill the
  // layouts' blocks, ones that leave them padded, and ones where the filter's
  // tiles (8 input x 64 to 512 output channels) are part full, part padded:
  // 1059 output channels leave a last tile of 35 (a run of 8 cut short).
  const Conv2dShape shapes[] = {{2, 7, 7, 64, 64, 3, 3, 1, 1},
                                {1, 9, 9, 3, 5, 3, 3, 2, 1},
                                {2, 5, 6, 24, 40, 1, 1, 1, 0},
                                {1, 8, 8, 17, 33, 5, 5, 1, 2},
                                {1, 6, 6, 20, 136, 3, 3, 1, 1},
                                {1, 4, 4, 16, 1059, 3, 3, 1, 1}};
  bool folded = false;
  for (const Conv2dShape& s : shapes) {
    for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter}) {
      for (int threads : {1, 2}) {
        const std::string what = std::string(ConvPassName(pass)) + " c" + std::to_string(s.c) + " oc" +
                                 std::to_string(s.oc) + " k" + std::to_string(s.kh) + " t" + std::to_string(threads);
        if (!onednn::ConvImpl(pass, s, Precision::kF32, threads).accepted) continue;
        const std::vector<float> in0 = RoundingInputs(ConvIn0Elems(pass, s), 7);
        const std::vector<float> in1 = RoundingInputs(ConvIn1Elems(pass, s), 8);
        const std::vector<float> r0 = Rounded(in0), r1 = Rounded(in1);
        const std::int64_t out_n = ConvOutElems(pass, s);
        std::vector<float> want(static_cast<std::size_t>(out_n)), got(static_cast<std::size_t>(out_n), -1.0f);
        onednn::Conv(pass, s, {r0.data(), r1.data(), want.data()}, Precision::kF32, threads);
        onednn::ConvOnBf16Values(pass, s, {in0.data(), in1.data(), got.data()}, threads);
        ASSERT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float))) << what;
        if (onednn::ConvFoldsFilterRounding(pass, s, threads)) {
          // The layout itself, padding included (which these primitives' results do not show).
          folded = true;
          std::vector<float> mine, theirs;
          ASSERT_TRUE(onednn::FoldedFilterForTesting(pass, s, threads, in1.data(), &mine, &theirs)) << what;
          ASSERT_EQ(mine.size(), theirs.size()) << what;
          ASSERT_EQ(0, std::memcmp(mine.data(), theirs.data(), mine.size() * sizeof(float))) << what;
        }
        if (pass == ConvPass::kBackwardFilter) {
          EXPECT_FALSE(onednn::ConvFoldsFilterRounding(pass, s, threads)) << what;
        }
      }
    }
  }
  EXPECT_TRUE(folded) << "no shape rounded its filter while reordering it: the folded path went untested";
}

}  // namespace
}  // namespace podbench::kernels
