// The functional SSD's input (crop, targets) and evaluation path.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "workloads/detection/box_coder.h"
#include "workloads/ssd/ssd_data.h"

namespace podbench::ssd {
namespace {

using detection::Box;

TEST(SsdDataTest, CropsKeepBoxCentresAndMeetTheirIou) {
  std::mt19937_64 rng(3);
  const std::vector<Box> boxes = {{10, 10, 30, 30}, {40, 35, 60, 60}};
  int cropped = 0;
  for (int i = 0; i < 300; ++i) {
    const SsdCrop c = SampleSsdCrop(boxes, 64, 64, 5, rng);
    ASSERT_GE(c.x, 0);
    ASSERT_LE(c.x + c.width, 64);
    ASSERT_LE(c.y + c.height, 64);
    ASSERT_EQ(c.keep.size(), 2u);
    ASSERT_TRUE(c.keep[0] || c.keep[1]);
    if (c.width < 64 || c.height < 64) {
      ++cropped;
      EXPECT_GE(c.width, 18);  // >= 0.3 of the side, rounded
      const double aspect = static_cast<double>(c.width) / c.height;
      EXPECT_TRUE(aspect > 0.45 && aspect < 2.2) << aspect;
    }
  }
  EXPECT_GT(cropped, 100);
  EXPECT_LT(cropped, 290);  // 1 in 7 passes keeps the whole image
}

TEST(SsdDataTest, TargetsMatchAndEncodeTheBoxes) {
  SsdConfig c;
  c.image_size = 64;
  const SsdNet net = BuildSsdNet(c);
  const auto anchors = detection::MakeAnchors(net.anchors);
  const std::vector<Box> truth = {{0.1, 0.1, 0.4, 0.45}};
  std::vector<int32_t> labels(anchors.size());
  std::vector<float> targets(anchors.size() * 4);
  EncodeTargets(anchors, truth, {3}, labels.data(), targets.data());
  int positives = 0;
  const detection::BoxCoder coder;
  for (size_t a = 0; a < anchors.size(); ++a) {
    if (labels[a] == 0) continue;
    ++positives;
    EXPECT_EQ(labels[a], 3);
    const Box d = coder.Decode(targets.data() + 4 * a, anchors[a]);
    EXPECT_NEAR(d.x0, 0.1, 1e-5);
    EXPECT_NEAR(d.y1, 0.45, 1e-5);
  }
  EXPECT_GE(positives, 1);
}

// Predictions built from the ground truth (every matched anchor says its
// object's class and exact box) score mAP near 1 (below it only where an
// object lost every anchor to a later neighbour in matching: 1 of the 78
// objects here, as in the reference); all-background predictions 0.
TEST(SsdDataTest, PerfectPredictionsScoreMapOne) {
  SsdConfig c;
  const SsdNet net = BuildSsdNet(c);
  SsdDataConfig dc;
  dc.shapes.height = dc.shapes.width = c.image_size;
  dc.shapes.classes = c.classes;
  dc.train_images = 1;
  dc.eval_images = 24;
  auto data = SsdData::Create(net, dc);
  ASSERT_TRUE(data.ok()) << data.status().ToString();
  const auto anchors = detection::MakeAnchors(net.anchors);
  const size_t A = anchors.size(), P = static_cast<size_t>(net.pred_width()), C = static_cast<size_t>(c.classes) + 1;
  std::vector<float> pred(24 * A * P, 0.f), empty(24 * A * P, 0.f);
  for (size_t i = 0; i < 24; ++i) {
    const detection::ShapesImage s = detection::MakeShapesImage(dc.shapes, dc.train_images + i);
    std::vector<Box> truth;
    std::vector<int> labels;
    for (const auto& o : s.objects) {
      truth.push_back({o.box.x0 / 64, o.box.y0 / 64, o.box.x1 / 64, o.box.y1 / 64});
      labels.push_back(o.label);
    }
    std::vector<int32_t> l(A);
    std::vector<float> t(A * 4);
    EncodeTargets(anchors, truth, labels, l.data(), t.data());
    for (size_t a = 0; a < A; ++a) {
      float* z = pred.data() + (i * A + a) * P;
      z[static_cast<size_t>(l[a])] = 10;
      std::copy(t.begin() + 4 * a, t.begin() + 4 * a + 4, z + C);
      empty[(i * A + a) * P] = 10;
    }
  }
  auto s = (*data)->Evaluate(pred);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_GT(s->ap(), 0.98);
  EXPECT_NEAR(s->stats[1], s->ap(), 1e-9);  // exact boxes: AP50 = AP
  s = (*data)->Evaluate(empty);
  ASSERT_TRUE(s.ok());
  EXPECT_LT(s->ap(), 1e-6);
  EXPECT_FALSE((*data)->Evaluate(std::vector<float>(5)).ok());
}

}  // namespace
}  // namespace podbench::ssd
