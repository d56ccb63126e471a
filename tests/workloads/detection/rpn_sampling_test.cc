// workloads/detection/rpn.h and sampling.h with known answers: Google's FPN
// anchors (279,279 at 832 x 1344), proposals (per-level top-k, NMS, best per
// image), the RPN's 0.7 / 0.3 matcher with forced matches and its 256-anchor
// sample, and the 512-ROI sample at 25% foreground with its box targets.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/detection/rpn.h"
#include "workloads/detection/sampling.h"

namespace podbench::detection {
namespace {

void ExpectBox(const Box& b, double x0, double y0, double x1, double y1) {
  EXPECT_NEAR(b.x0, x0, 1e-9);
  EXPECT_NEAR(b.y0, y0, 1e-9);
  EXPECT_NEAR(b.x1, x1, 1e-9);
  EXPECT_NEAR(b.y1, y1, 1e-9);
}

TEST(FpnAnchors, GoogleConfigurationAt832x1344) {
  const FpnAnchorConfig c;
  ASSERT_TRUE(c.Validate().ok());
  const auto levels = MakeFpnAnchors(c);
  ASSERT_EQ(levels.size(), 5u);
  size_t total = 0;
  for (const auto& l : levels) total += l.size();
  EXPECT_EQ(total, 279279u);
  EXPECT_EQ(levels[0].size(), 208u * 336u * 3u);
  // Level 2 (stride 4, base 32), location (0, 0): 1:1, then 1.4:0.7, 0.7:1.4.
  ExpectBox(levels[0][0], -14, -14, 18, 18);
  ExpectBox(levels[0][1], 2 - 22.4, 2 - 11.2, 2 + 22.4, 2 + 11.2);
  ExpectBox(levels[0][2], 2 - 11.2, 2 - 22.4, 2 + 11.2, 2 + 22.4);
  // Row 1, column 2 of level 2: centre (x 10, y 6).
  ExpectBox(levels[0][(1 * 336 + 2) * 3], 10 - 16, 6 - 16, 10 + 16, 6 + 16);
  // Level 6 (stride 64, base 512), last location: centre (1344 - 32, 832 - 32).
  ExpectBox(levels[4].back(), 1312 - 179.2, 800 - 358.4, 1312 + 179.2, 800 + 358.4);
}

TEST(FpnAnchors, ValidationNamesTheField) {
  FpnAnchorConfig c;
  c.image_height = 800;  // not a multiple of 64
  EXPECT_NE(c.Validate().message().find("divisible by 64"), std::string::npos) << c.Validate().message();
  c = {};
  c.aspect_ratios = {{1, 0}};
  EXPECT_NE(c.Validate().message().find("aspect ratio"), std::string::npos);
  c = {};
  c.num_scales = 2;
  ASSERT_TRUE(c.Validate().ok());
  const auto l = MakeFpnAnchors(c);
  EXPECT_EQ(l[0].size(), 208u * 336u * 6u);
  EXPECT_NEAR(l[0][3].width(), 32 * std::sqrt(2.0), 1e-9);  // scale 1, ratio (1, 1)
}

float Logit(double p) { return static_cast<float>(std::log(p / (1 - p))); }

TEST(Proposals, TopKThenNmsPerLevelThenBestPerImage) {
  // Level 0: four 10x10 anchors; 0 and 1 overlap at IoU 0.9 / 1.1 = 0.818.
  const std::vector<Box> a0 = {Box::FromXywh(0, 0, 10, 10), Box::FromXywh(1, 0, 10, 10), Box::FromXywh(30, 30, 10, 10),
                               Box::FromXywh(60, 60, 10, 10)};
  const std::vector<float> l0 = {Logit(0.9), Logit(0.8), Logit(0.3), Logit(0.2)};
  const std::vector<float> d0(16, 0.0f);
  // Level 1: one 20x20 anchor moved right by half its width (tx 0.5).
  const std::vector<Box> a1 = {Box::FromXywh(40, 0, 20, 20)};
  const std::vector<float> l1 = {Logit(0.5)};
  const std::vector<float> d1 = {0.5f, 0, 0, 0};
  const std::vector<RpnLevelOutputs> levels = {{a0, l0, d0}, {a1, l1, d1}};
  ProposalConfig cfg;
  cfg.pre_nms_top_k = 3;  // drops level 0's anchor 3
  cfg.post_nms_top_k = 3;
  Result<std::vector<Proposal>> r = GenerateProposals(levels, 100, 100, cfg);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const std::vector<Proposal>& p = r.value();
  ASSERT_EQ(p.size(), 3u);  // anchor 1 suppressed by anchor 0
  EXPECT_NEAR(p[0].score, 0.9, 1e-6);
  EXPECT_EQ(p[0].level, 0);
  ExpectBox(p[0].box, 0, 0, 10, 10);
  EXPECT_NEAR(p[1].score, 0.5, 1e-6);
  EXPECT_EQ(p[1].level, 1);
  ExpectBox(p[1].box, 50, 0, 70, 20);
  EXPECT_NEAR(p[2].score, 0.3, 1e-6);
  // Without NMS and a post-NMS limit of 2, the two best over all levels.
  cfg.nms_iou = 0;
  cfg.post_nms_top_k = 2;
  r = GenerateProposals(levels, 100, 100, cfg);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_NEAR(r.value()[1].score, 0.8, 1e-6);
}

TEST(Proposals, ClipsToTheImageAndDropsEmptyAndSmallBoxes) {
  const std::vector<Box> a = {Box::FromXywh(-5, 90, 20, 20), Box::FromXywh(120, 0, 10, 10), Box::FromXywh(0, 0, 4, 4)};
  const std::vector<float> l = {1.0f, 2.0f, 0.5f};
  const std::vector<float> d(12, 0.0f);
  const std::vector<RpnLevelOutputs> levels = {{a, l, d}};
  ProposalConfig cfg;
  Result<std::vector<Proposal>> r = GenerateProposals(levels, 100, 100, cfg);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.value().size(), 2u);  // the anchor right of the image is empty once clipped
  ExpectBox(r.value()[0].box, 0, 90, 15, 100);
  cfg.min_size = 5;  // drops the 4x4 box
  r = GenerateProposals(levels, 100, 100, cfg);
  ASSERT_EQ(r.value().size(), 1u);
}

TEST(Proposals, BadInputsAreNamed) {
  const std::vector<Box> a = {Box::FromXywh(0, 0, 10, 10)};
  const std::vector<float> l = {1.0f}, d = {0, 0, 0};
  const std::vector<RpnLevelOutputs> levels = {{a, l, d}};
  Result<std::vector<Proposal>> r = GenerateProposals(levels, 100, 100);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("level 0"), std::string::npos) << r.status().message();
  ProposalConfig cfg;
  cfg.pre_nms_top_k = 0;
  EXPECT_FALSE(GenerateProposals({}, 100, 100, cfg).ok());
  EXPECT_FALSE(GenerateProposals({}, 0, 100).ok());
}

TEST(SampleSubset, UniformSubsetOfTheRightSize) {
  Rng rng(7);
  std::vector<int> all(100);
  for (int i = 0; i < 100; ++i) all[static_cast<size_t>(i)] = i;
  const std::vector<int> s = SampleSubset(all, 10, rng);
  EXPECT_EQ(s.size(), 10u);
  EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
  EXPECT_EQ(std::set<int>(s.begin(), s.end()).size(), 10u);
  EXPECT_EQ(SampleSubset(all, 500, rng).size(), 100u);
  Rng again(7);
  EXPECT_EQ(SampleSubset(all, 10, again), s);  // same seed, same sample
}

TEST(RpnMatching, ThresholdsIgnoreBandAndForcedMatches) {
  const std::vector<Box> truth = {Box::FromXywh(0, 0, 10, 10), Box::FromXywh(100, 100, 10, 10)};
  const std::vector<Box> anchors = {
      Box::FromXywh(0, 0, 10, 10),      // IoU 1 with truth 0
      Box::FromXywh(0, 0, 10, 5),       // 0.5: ignored
      Box::FromXywh(0, 0, 10, 2.5),     // 0.25: negative
      Box::FromXywh(50, 50, 10, 10),    // 0: negative
      Box::FromXywh(104, 100, 10, 10),  // 0.6 / 1.4 = 0.43 with truth 1: ignored, but truth 1's best: forced
  };
  const std::vector<int> m = MatchRpnAnchors(anchors, truth);
  EXPECT_EQ(m, (std::vector<int>{0, kRpnIgnored, kRpnNegative, kRpnNegative, 1}));
  // Two boxes whose best anchor is the same (IoU 0.5 each, so only forced):
  // the first box keeps it.
  const std::vector<Box> twins = {Box::FromXywh(0, 0, 10, 5), Box::FromXywh(0, 5, 10, 5)};
  const std::vector<Box> one = {Box::FromXywh(0, 0, 10, 10), Box::FromXywh(500, 500, 1, 1)};
  EXPECT_EQ(MatchRpnAnchors(one, twins)[0], 0);
  // No ground truth: all negative.
  EXPECT_EQ(MatchRpnAnchors(anchors, {}), std::vector<int>(5, kRpnNegative));
}

TEST(RpnSampling, HalfPositiveBatchOf256WithEncodedTargets) {
  // 300 anchors identical to one box (positives) and 1000 far away.
  const std::vector<Box> truth = {Box::FromXywh(10, 10, 20, 20)};
  std::vector<Box> anchors(300, Box::FromXywh(10, 10, 20, 20));
  anchors.push_back(Box::FromXywh(15, 10, 20, 40));  // 300: IoU 15x20 / (400 + 800 - 300) = 0.33: ignored
  for (int i = 0; i < 1000; ++i) anchors.push_back(Box::FromXywh(500 + i, 500, 10, 10));
  Rng rng(1);
  Result<RpnTargets> t = SampleRpnAnchors(anchors, truth, {}, rng);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().positives, 128);
  EXPECT_EQ(t.value().negatives, 128);
  EXPECT_EQ(std::count(t.value().labels.begin(), t.value().labels.end(), 1), 128);
  EXPECT_EQ(std::count(t.value().labels.begin(), t.value().labels.end(), 0), 128);
  EXPECT_EQ(t.value().labels[300], -1);
  for (size_t a = 0; a < 300; ++a) {
    if (t.value().labels[a] == 1) {
      EXPECT_EQ(t.value().boxes[a], (std::array<float, 4>{0, 0, 0, 0}));
    }
  }
  // Few positives: all of them, the rest of the 256 negative. The forced
  // match makes the shifted anchor positive when it is the box's best.
  std::vector<Box> few = {Box::FromXywh(15, 10, 20, 40)};
  for (int i = 0; i < 1000; ++i) few.push_back(Box::FromXywh(500 + i, 500, 10, 10));
  t = SampleRpnAnchors(few, truth, {}, rng);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value().positives, 1);
  EXPECT_EQ(t.value().negatives, 255);
  ASSERT_EQ(t.value().labels[0], 1);
  // Truth (centre 20, 20; 20 x 20) against the anchor (centre 25, 30; 20 x 40).
  const std::array<float, 4> want = {float(-5.0 / 20), float(-10.0 / 40), 0.0f, float(std::log(0.5))};
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(t.value().boxes[0][static_cast<size_t>(k)], want[static_cast<size_t>(k)], 1e-6);
}

TEST(RpnSampling, BadConfigIsNamed) {
  Rng rng(1);
  RpnSamplingConfig c;
  c.batch = 0;
  EXPECT_NE(SampleRpnAnchors({}, {}, c, rng).status().message().find("batch"), std::string::npos);
  c = {};
  c.negative_iou = 0.8;
  EXPECT_NE(SampleRpnAnchors({}, {}, c, rng).status().message().find("negative_iou"), std::string::npos);
}

TEST(RoiSampling, ForegroundAboveOneHalfBackgroundBelowAndGtBoxesIncluded) {
  const std::vector<Box> truth = {Box::FromXywh(1, 0, 10, 10)};
  const std::vector<int> cls = {7};
  const std::vector<Box> proposals = {
      Box::FromXywh(0, 0, 10, 10),     // IoU 90 / 110 = 0.82: foreground
      Box::FromXywh(1, 0, 10, 20),     // 100 / 200 = 0.5 exactly: neither (Google's tf.greater)
      Box::FromXywh(1, 0, 10, 30),     // 0.33: background
      Box::FromXywh(300, 300, 5, 5),   // 0: background
  };
  Rng rng(3);
  Result<SampledRois> r = SampleRois(proposals, truth, cls, {}, rng);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const SampledRois& s = r.value();
  ASSERT_EQ(s.rois.size(), 4u);  // proposals 0, 2, 3 and the gt box itself
  EXPECT_EQ(s.foreground, 2);
  EXPECT_EQ(s.classes, (std::vector<int>{7, 0, 0, 7}));
  EXPECT_EQ(s.matched, (std::vector<int>{0, -1, -1, 0}));
  ExpectBox(s.rois[1], 1, 0, 11, 30);
  // Proposal 0 against the truth: centre 1 px right of a 10 px box, / 0.1.
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(s.box_targets[0][static_cast<size_t>(k)], k == 0 ? 1.0 : 0.0, 1e-6);
  EXPECT_EQ(s.box_targets[3], (std::array<float, 4>{0, 0, 0, 0}));  // the gt box on itself
  EXPECT_EQ(s.box_targets[1], (std::array<float, 4>{0, 0, 0, 0}));  // background
}

TEST(RoiSampling, QuarterForegroundBatchOf512) {
  const std::vector<Box> truth = {Box::FromXywh(0, 0, 100, 100)};
  const std::vector<int> cls = {3};
  std::vector<Box> proposals;
  for (int i = 0; i < 1000; ++i) proposals.push_back(Box::FromXywh(0.01 * i, 0, 100, 100));  // foreground
  for (int i = 0; i < 1000; ++i) proposals.push_back(Box::FromXywh(200 + i, 0, 10, 10));     // background
  Rng rng(5);
  Result<SampledRois> r = SampleRois(proposals, truth, cls, {}, rng);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().rois.size(), 512u);
  EXPECT_EQ(r.value().foreground, 128);
  EXPECT_EQ(std::count(r.value().classes.begin(), r.value().classes.end(), 3), 128);
  // Little background: the sample is 128 foreground + all 10 background.
  proposals.resize(1010);
  r = SampleRois(proposals, truth, cls, {}, rng);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().rois.size(), 138u);
  // No ground truth: all background.
  r = SampleRois(proposals, {}, {}, {}, rng);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value().foreground, 0);
  EXPECT_EQ(r.value().rois.size(), 512u);
}

TEST(RoiSampling, BadInputsAreNamed) {
  Rng rng(1);
  const std::vector<Box> truth = {Box::FromXywh(0, 0, 1, 1)};
  const std::vector<int> zero = {0};
  EXPECT_NE(SampleRois({}, truth, zero, {}, rng).status().message().find("class 0"), std::string::npos);
  EXPECT_NE(SampleRois({}, truth, {}, {}, rng).status().message().find("1 ground-truth boxes but 0 classes"),
            std::string::npos);
  RoiSamplingConfig c;
  c.fg_fraction = 1.5;
  EXPECT_FALSE(SampleRois({}, {}, {}, c, rng).ok());
}

}  // namespace
}  // namespace podbench::detection
