// The COCO mAP evaluator: all 19 golden cases of pycocotools' COCOeval
// (../shared/fixtures/expected/coco-map-cases.json, every one of the 12
// summary numbers to 1e-9) and hand-computed cases that need no fixtures.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "workloads/detection/coco_eval.h"

namespace podbench::detection {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

struct Case {
  CocoInput input;
  std::vector<CocoBox> det_boxes, gt_boxes;
  Result<CocoSummary> Run() const {
    CocoBoxGeometry geo(det_boxes, gt_boxes);
    return EvaluateCoco(input, geo);
  }
  void Image(int64_t id) { input.image_ids.push_back(id); }
  void Truth(int64_t id, int64_t img, int64_t cat, CocoBox b, bool crowd = false, double area = -1) {
    input.truth.push_back({id, img, cat, area >= 0 ? area : b[2] * b[3], crowd});
    gt_boxes.push_back(b);
  }
  void Det(int64_t img, int64_t cat, CocoBox b, double score) {
    input.detections.push_back({img, cat, score});
    det_boxes.push_back(b);
  }
};

TEST(CocoEvalTest, AllNineteenGoldenCasesOfPycocotools) {
  PODBENCH_REQUIRE_SHARED(shared);
  std::ifstream in(shared / "fixtures" / "expected" / "coco-map-cases.json");
  ASSERT_TRUE(in) << "cannot read coco-map-cases.json";
  const nlohmann::json cases = nlohmann::json::parse(in);
  ASSERT_EQ(cases.size(), 19u);
  const auto& names = CocoSummary::Names();
  int checked = 0;
  double worst = 0;
  for (const auto& c : cases) {
    Case k;
    for (const auto& im : c["images"]) k.Image(im["id"].get<int64_t>());
    for (const auto& cat : c["categories"]) k.input.category_ids.push_back(cat["id"].get<int64_t>());
    for (const auto& a : c["annotations"]) {
      k.Truth(a["id"].get<int64_t>(), a["image_id"].get<int64_t>(), a["category_id"].get<int64_t>(),
              a["bbox"].get<CocoBox>(), a["iscrowd"].get<int>() != 0, a["area"].get<double>());
    }
    for (const auto& d : c["detections"]) {
      k.Det(d["image_id"].get<int64_t>(), d["category_id"].get<int64_t>(), d["bbox"].get<CocoBox>(),
            d["score"].get<double>());
    }
    auto r = k.Run();
    ASSERT_TRUE(r.ok()) << c["name"] << ": " << r.status().ToString();
    for (int i = 0; i < CocoSummary::kCount; ++i) {
      const double want = c["expected"][names[static_cast<size_t>(i)]].get<double>();
      EXPECT_NEAR(r->stats[static_cast<size_t>(i)], want, 1e-9) << c["name"] << " " << names[static_cast<size_t>(i)];
      worst = std::max(worst, std::abs(r->stats[static_cast<size_t>(i)] - want));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 19 * 12);
  std::printf("%d summary numbers of 19 cases, largest difference from pycocotools %.3g\n", checked, worst);
}

// One exact detection: precision 1 / (1 + eps) at every recall threshold.
TEST(CocoEvalTest, OneExactDetectionOfASmallObject) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(1, 1, 1, {10, 10, 20, 20});  // area 400: small
  k.Det(1, 1, {10, 10, 20, 20}, 0.9);
  auto r = k.Run();
  ASSERT_TRUE(r.ok());
  const double p = 1 / (1 + kEps);
  const std::array<double, 12> want = {p, p, p, p, -1, -1, 1, 1, 1, 1, -1, -1};
  for (size_t i = 0; i < 12; ++i) EXPECT_NEAR(r->stats[i], want[i], 1e-15) << CocoSummary::Names()[i];
}

// IoU exactly 0.6 matches at the thresholds 0.50, 0.55 and 0.60 only.
TEST(CocoEvalTest, IouOfPointSixCountsAtThreeOfTenThresholds) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(1, 1, 1, {0, 0, 100, 100});  // area 10000: large
  k.Det(1, 1, {0, 0, 60, 100}, 0.5);   // IoU 6000 / 10000
  auto r = k.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_NEAR(r->stats[0], 0.3 / (1 + kEps), 1e-15);  // AP
  EXPECT_NEAR(r->stats[1], 1 / (1 + kEps), 1e-15);    // AP50
  EXPECT_EQ(r->stats[2], 0.0);                        // AP75
  EXPECT_NEAR(r->stats[8], 0.3, 1e-15);               // AR100
  EXPECT_EQ(r->stats[3], -1.0);                       // no small object
}

// A false positive above a true positive: precision 1/2 up to recall 1/2
// (51 of 101 recall thresholds), 0 beyond.
TEST(CocoEvalTest, AFalsePositiveRankedFirstHalvesPrecision) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(1, 1, 1, {0, 0, 50, 50});
  k.Truth(2, 1, 1, {200, 200, 50, 50});
  k.Det(1, 1, {400, 300, 50, 50}, 0.9);
  k.Det(1, 1, {0, 0, 50, 50}, 0.8);
  auto r = k.Run();
  ASSERT_TRUE(r.ok());
  const double p = 1 / (2 + kEps);
  EXPECT_NEAR(r->stats[0], 51 * p / 101, 1e-15);
  EXPECT_NEAR(r->stats[8], 0.5, 1e-15);  // AR100
  EXPECT_EQ(r->stats[6], 0.0);           // AR1: the one detection kept is the false positive
}

// A crowd region absorbs detections inside it (intersection over the
// detection's area), which then count neither way, and is never a miss.
TEST(CocoEvalTest, CrowdRegionsIgnoreTheDetectionsTheyAbsorb) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(1, 1, 1, {0, 0, 200, 200}, /*crowd=*/true);
  k.Truth(2, 1, 1, {300, 300, 40, 40});
  k.Det(1, 1, {10, 10, 30, 30}, 0.95);   // inside the crowd: IoU 1 with it
  k.Det(1, 1, {150, 150, 100, 100}, 0.9);  // a quarter inside: IoU 0.25, a false positive
  k.Det(1, 1, {300, 300, 40, 40}, 0.8);  // the object
  auto r = k.Run();
  ASSERT_TRUE(r.ok());
  // Ranked: ignored, FP, TP -> precision 1/2 up to recall 1.
  EXPECT_NEAR(r->stats[0], 0.5 / (1 + 0.5 * kEps) * 1.0, 1e-12);
  EXPECT_NEAR(r->stats[8], 1.0, 1e-15);
}

TEST(CocoEvalTest, AreaLimitsBelongToBothRanges) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(1, 1, 1, {0, 0, 32, 32});  // area 1024: small and medium
  k.Det(1, 1, {0, 0, 32, 32}, 0.9);
  auto r = k.Run();
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r->stats[3], 0.99);   // APs
  EXPECT_GT(r->stats[4], 0.99);   // APm
  EXPECT_EQ(r->stats[5], -1.0);   // APl
}

TEST(CocoEvalTest, BadInputsAreRefusedWithTheirIndex) {
  Case k;
  k.Image(1);
  k.input.category_ids = {1};
  k.Truth(0, 1, 1, {0, 0, 10, 10});
  auto r = k.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(">= 1"), std::string::npos) << r.status().message();
  Case d;
  d.Image(1);
  d.input.category_ids = {1};
  d.Det(5, 1, {0, 0, 10, 10}, 0.5);
  r = d.Run();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("image 5"), std::string::npos) << r.status().message();
  Case s;
  s.Image(1);
  s.input.category_ids = {1};
  s.Det(1, 1, {0, 0, 10, 10}, std::nan(""));
  EXPECT_FALSE(s.Run().ok());
}

}  // namespace
}  // namespace podbench::detection
