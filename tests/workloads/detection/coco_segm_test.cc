// COCO segm evaluation against pycocotools: all 15 golden cases of
// ../shared/fixtures/expected/coco-segm-cases.json, part by part (the
// polygon rasteriser and RLE forms against every official ground-truth mask,
// the compressed strings of every detection both ways, maskUtils.iou's
// matrices, crowd included) and then the 12 summary numbers to 1e-9.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/testing/shared_dir.h"
#include "workloads/detection/coco_eval.h"
#include "workloads/detection/coco_segmentation.h"
#include "workloads/detection/mask_rle.h"
#include "workloads/detection/mask_rle_string.h"

namespace podbench::detection {
namespace {

using nlohmann::json;

// A "segmentation" as COCO's JSON holds it.
CocoSegmentation ParseSegmentation(const json& s) {
  CocoSegmentation out;
  if (s.is_array()) {
    out.form = CocoSegmentation::Form::kPolygons;
    out.polygons = s.get<std::vector<std::vector<double>>>();
    return out;
  }
  out.height = s["size"][0].get<int>();
  out.width = s["size"][1].get<int>();
  if (s["counts"].is_string()) {
    out.form = CocoSegmentation::Form::kCountsString;
    out.counts_string = s["counts"].get<std::string>();
  } else {
    out.form = CocoSegmentation::Form::kCounts;
    out.counts = s["counts"].get<std::vector<uint32_t>>();
  }
  return out;
}

// The "mask" rows of the fixture ("0110...", one string per row), row-major.
std::vector<uint8_t> Rows(const json& rows) {
  std::vector<uint8_t> m;
  for (const auto& r : rows) {
    for (char c : r.get<std::string>()) m.push_back(c == '1');
  }
  return m;
}

struct SegmCase {
  std::string name;
  json raw;
  CocoInput input;
  std::vector<Rle> gt_masks, dt_masks;
  std::map<int64_t, size_t> truth_index;  // annotation id -> index
};

// The case's input and masks as pycocotools' COCO and loadRes build them.
SegmCase Build(const json& c) {
  SegmCase k;
  k.name = c["name"].get<std::string>();
  k.raw = c;
  std::map<int64_t, std::pair<int, int>> size;  // image id -> (h, w)
  for (const auto& im : c["images"]) {
    k.input.image_ids.push_back(im["id"].get<int64_t>());
    size[im["id"].get<int64_t>()] = {im["height"].get<int>(), im["width"].get<int>()};
  }
  for (const auto& cat : c["categories"]) k.input.category_ids.push_back(cat["id"].get<int64_t>());
  for (const auto& a : c["annotations"]) {
    const int64_t img = a["image_id"].get<int64_t>();
    k.truth_index[a["id"].get<int64_t>()] = k.input.truth.size();
    k.input.truth.push_back({a["id"].get<int64_t>(), img, a["category_id"].get<int64_t>(), a["area"].get<double>(),
                             a["iscrowd"].get<int>() != 0});
    auto m = SegmentationToRle(ParseSegmentation(a["segmentation"]), size[img].first, size[img].second,
                               k.name + " annotation " + std::to_string(a["id"].get<int64_t>()));
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    k.gt_masks.push_back(m.ok() ? *m : Rle{});
  }
  for (const auto& d : c["detections"]) {
    const int64_t img = d["image_id"].get<int64_t>();
    k.input.detections.push_back({img, d["category_id"].get<int64_t>(), d["score"].get<double>()});
    auto m = SegmentationToRle(ParseSegmentation(d["segmentation"]), size[img].first, size[img].second,
                               k.name + " detection");
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    k.dt_masks.push_back(m.ok() ? *m : Rle{});
  }
  return k;
}

class CocoSegmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PODBENCH_REQUIRE_SHARED(shared);
    std::ifstream in(shared / "fixtures" / "expected" / "coco-segm-cases.json");
    ASSERT_TRUE(in) << "cannot read coco-segm-cases.json";
    cases_ = json::parse(in);
    ASSERT_EQ(cases_.size(), 15u);
  }
  json cases_;
};

// Every ground truth (polygons, uncompressed and compressed RLE) decoded to
// exactly pycocotools' counts, pixels and area.
TEST_F(CocoSegmTest, EveryGroundTruthMaskMatchesPycocotoolsBitForBit) {
  int polygons = 0, rles = 0;
  for (const auto& c : cases_) {
    const SegmCase k = Build(c);
    std::map<int64_t, json> want;
    for (const auto& g : c["gt_masks"]) want[g["id"].get<int64_t>()] = g;
    ASSERT_EQ(want.size(), k.input.truth.size()) << k.name;
    for (const auto& a : c["annotations"]) {
      const int64_t id = a["id"].get<int64_t>();
      const Rle& got = k.gt_masks[k.truth_index.at(id)];
      const json& w = want.at(id);
      const std::string at = k.name + " annotation " + std::to_string(id);
      EXPECT_EQ(got.counts, w["rle_counts"].get<std::vector<uint32_t>>()) << at;
      EXPECT_EQ(DecodeMask(got), Rows(w["mask"])) << at;
      EXPECT_EQ(MaskArea(got), w["area"].get<uint64_t>()) << at;
      (a["segmentation"].is_array() ? polygons : rles) += 1;
    }
  }
  EXPECT_GE(polygons, 60);
  std::printf("%d polygon and %d RLE ground truths equal pycocotools' masks\n", polygons, rles);
}

// Every detection's compressed string decodes to the official counts and
// pixels, and encodes back to the same string; dense -> RLE gives the same
// counts; the box from the RLE is the set pixels' tight box.
TEST_F(CocoSegmTest, CompressedStringsAndMasksRoundTrip) {
  int strings = 0;
  for (const auto& c : cases_) {
    const SegmCase k = Build(c);
    for (size_t i = 0; i < k.dt_masks.size(); ++i) {
      const json& d = c["detections"][i];
      const std::string at = k.name + " detection #" + std::to_string(i);
      const Rle& m = k.dt_masks[i];
      EXPECT_EQ(m.counts, d["rle_counts"].get<std::vector<uint32_t>>()) << at;
      EXPECT_EQ(EncodeRleString(m), d["segmentation"]["counts"].get<std::string>()) << at;
      const std::vector<uint8_t> pixels = Rows(d["mask"]);
      EXPECT_EQ(DecodeMask(m), pixels) << at;
      EXPECT_EQ(EncodeMask(m.height, m.width, pixels).counts, m.counts) << at;
      // Tight box of the set pixels.
      int x0 = m.width, y0 = m.height, x1 = -1, y1 = -1;
      for (int y = 0; y < m.height; ++y) {
        for (int x = 0; x < m.width; ++x) {
          if (!pixels[static_cast<size_t>(y * m.width + x)]) continue;
          x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        }
      }
      const std::array<double, 4> box =
          x1 < 0 ? std::array<double, 4>{0, 0, 0, 0}
                 : std::array<double, 4>{double(x0), double(y0), double(x1 - x0 + 1), double(y1 - y0 + 1)};
      EXPECT_EQ(MaskBox(m), box) << at;
      ++strings;
    }
    for (const auto& a : c["annotations"]) {  // ground truth given as a string
      if (a["segmentation"].is_object() && a["segmentation"]["counts"].is_string()) {
        const Rle& m = k.gt_masks[k.truth_index.at(a["id"].get<int64_t>())];
        EXPECT_EQ(EncodeRleString(m), a["segmentation"]["counts"].get<std::string>()) << k.name;
        ++strings;
      }
    }
  }
  EXPECT_GE(strings, 200);
  std::printf("%d compressed RLE strings decode and re-encode as pycocotools does\n", strings);
}

// maskUtils.iou's matrices (crowd columns: intersection over the detection's
// area), exactly.
TEST_F(CocoSegmTest, MaskIouMatchesMaskUtilsIouIncludingCrowd) {
  int pairs = 0, crowd = 0;
  for (const auto& c : cases_) {
    const SegmCase k = Build(c);
    for (const auto& e : c["mask_iou"]) {
      const auto dets = e["detection_indices"].get<std::vector<size_t>>();
      const auto gts = e["gt_ids"].get<std::vector<int64_t>>();
      for (size_t d = 0; d < dets.size(); ++d) {
        for (size_t g = 0; g < gts.size(); ++g) {
          const size_t gi = k.truth_index.at(gts[g]);
          const bool is_crowd = k.input.truth[gi].iscrowd;
          const double want = e["iou"][d][g].get<double>();
          EXPECT_EQ(MaskIou(k.dt_masks[dets[d]], k.gt_masks[gi], is_crowd), want)
              << k.name << " image " << e["image_id"] << " detection " << dets[d] << " gt " << gts[g];
          ++pairs;
          crowd += is_crowd;
        }
      }
    }
  }
  EXPECT_GT(crowd, 0);
  std::printf("%d mask IoUs (%d against crowd regions) equal maskUtils.iou's\n", pairs, crowd);
}

TEST_F(CocoSegmTest, AllFifteenSegmCasesMatchCocoEvalSummaries) {
  const auto& names = CocoSummary::Names();
  int checked = 0;
  double worst = 0;
  for (const auto& c : cases_) {
    const SegmCase k = Build(c);
    CocoMaskGeometry geo(k.dt_masks, k.gt_masks);
    auto r = EvaluateCoco(k.input, geo);
    ASSERT_TRUE(r.ok()) << k.name << ": " << r.status().ToString();
    for (int i = 0; i < CocoSummary::kCount; ++i) {
      const double want = c["expected"][names[static_cast<size_t>(i)]].get<double>();
      const double got = r->stats[static_cast<size_t>(i)];
      EXPECT_NEAR(got, want, 1e-9) << k.name << " " << names[static_cast<size_t>(i)];
      worst = std::max(worst, std::abs(got - want));
      ++checked;
    }
  }
  EXPECT_EQ(checked, 15 * 12);
  std::printf("%d segm summary numbers of 15 cases, largest difference from pycocotools %.3g\n", checked, worst);
}

}  // namespace
}  // namespace podbench::detection
