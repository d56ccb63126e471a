// Greedy NMS and SSD's per-class post-processing.
#include <gtest/gtest.h>

#include "workloads/detection/nms.h"

namespace podbench::detection {
namespace {

TEST(NmsTest, KeepsTheBestOfEachOverlappingGroup) {
  const std::vector<Box> boxes = {{0, 0, 10, 10}, {1, 0, 11, 10}, {50, 50, 60, 60}, {0, 0, 10, 19}};
  const std::vector<float> scores = {0.8f, 0.9f, 0.7f, 0.85f};
  // Box 1 (0.9) first; box 3 (IoU 9/19 with... box 1: 90/(100+190-90) = 0.45) stays;
  // box 0 (IoU 0.82 with box 1) goes; box 2 overlaps nothing.
  EXPECT_EQ(Nms(boxes, scores, {0, 1, 2, 3}, 0.5), (std::vector<int>{1, 3, 2}));
  // At most two kept.
  EXPECT_EQ(Nms(boxes, scores, {0, 1, 2, 3}, 0.5, 2), (std::vector<int>{1, 3}));
  // IoU exactly at the threshold is kept (only > suppresses).
  const std::vector<Box> half = {{0, 0, 10, 10}, {0, 0, 10, 5}};
  EXPECT_EQ(Nms(half, {0.9f, 0.8f}, {0, 1}, 0.5).size(), 2u);
  // Equal scores: the lower index first.
  EXPECT_EQ(Nms(half, {0.8f, 0.8f}, {1, 0}, 0.4), (std::vector<int>{0}));
}

TEST(NmsTest, PerClassSkipsBackgroundAndLowScoresAndCapsTheImage) {
  // Three anchors, three classes (0 = background).
  const std::vector<Box> boxes = {{0, 0, 10, 10}, {0, 0, 10, 10}, {30, 30, 40, 40}};
  const float scores[] = {
      0.1f, 0.6f, 0.3f,   // anchor 0
      0.2f, 0.7f, 0.1f,   // anchor 1: same box as 0, class 1 wins
      0.9f, 0.04f, 0.06f  // anchor 2: background, then scores at/below 0.05 and just above
  };
  std::vector<Detection> d = PerClassNms(boxes, scores, 3);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].label, 1);  // 0.7 (anchor 1); anchor 0's 0.6 suppressed in class 1
  EXPECT_FLOAT_EQ(d[0].score, 0.7f);
  EXPECT_EQ(d[1].label, 2);  // 0.3, class 2 keeps anchor 0 (suppresses anchor 1's 0.1)
  EXPECT_EQ(d[2].label, 2);  // 0.06 at anchor 2; class 1's 0.04 is not above 0.05
  EXPECT_FLOAT_EQ(d[2].score, 0.06f);
  NmsConfig cap;
  cap.max_detections = 2;
  EXPECT_EQ(PerClassNms(boxes, scores, 3, cap).size(), 2u);
}

}  // namespace
}  // namespace podbench::detection
