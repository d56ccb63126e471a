// The 17 input planes on known positions, and the 8 board symmetries.
#include "workloads/minigo/go/features.h"

#include <set>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace podbench::minigo {
namespace {

float At(const std::vector<float>& f, int point, int plane) { return f[point * kNumPlanes + plane]; }

float PlaneSum(const std::vector<float>& f, int plane) {
  float s = 0;
  for (int p = 0; p < kNumPoints; ++p) s += At(f, p, plane);
  return s;
}

int Pt(std::string_view gtp) { return ParseGtpMove(gtp).value(); }

TEST(GoFeaturesTest, SeventeenPlanesAfterThreeMoves) {
  // B E5, W C7, B G3: white to play; 4 positions exist (the empty board
  // repeats as the oldest).
  std::vector<Position> line(1);
  for (const char* m : {"E5", "C7", "G3"}) {
    line.push_back(line.back());
    ASSERT_TRUE(line.back().Play(Pt(m)).ok());
  }
  std::vector<const Position*> history;
  for (auto it = line.rbegin(); it != line.rend(); ++it) history.push_back(&*it);
  std::vector<float> f(kFeatureSize);
  ASSERT_TRUE(ExtractFeatures(history, f).ok());

  const int e5 = Pt("E5"), c7 = Pt("C7"), g3 = Pt("G3");
  // Now: own (white) C7; opponent (black) E5, G3.
  EXPECT_EQ(At(f, c7, 0), 1);
  EXPECT_EQ(PlaneSum(f, 0), 1);
  EXPECT_EQ(At(f, e5, 1), 1);
  EXPECT_EQ(At(f, g3, 1), 1);
  EXPECT_EQ(PlaneSum(f, 1), 2);
  // One move ago: white C7, black E5.
  EXPECT_EQ(At(f, c7, 2), 1);
  EXPECT_EQ(PlaneSum(f, 2), 1);
  EXPECT_EQ(At(f, e5, 3), 1);
  EXPECT_EQ(PlaneSum(f, 3), 1);
  // Two moves ago: black E5 only.
  EXPECT_EQ(PlaneSum(f, 4), 0);
  EXPECT_EQ(At(f, e5, 5), 1);
  EXPECT_EQ(PlaneSum(f, 5), 1);
  // Three moves ago and the repeats of that empty board.
  for (int plane = 6; plane < 16; ++plane) EXPECT_EQ(PlaneSum(f, plane), 0) << plane;
  // White to play: the colour plane is 0.
  EXPECT_EQ(PlaneSum(f, 16), 0);

  // One move earlier (black to play): own = black, and the plane is all 1.
  history.erase(history.begin());
  ASSERT_TRUE(ExtractFeatures(history, f).ok());
  EXPECT_EQ(At(f, e5, 0), 1);
  EXPECT_EQ(At(f, c7, 1), 1);
  EXPECT_EQ(PlaneSum(f, 16), 81);
}

TEST(GoFeaturesTest, TheOldestBoardRepeats) {
  auto start = Position::FromDiagram(
      "X........\n.........\n.........\n.........\n.........\n"
      ".........\n.........\n.........\n........O\n");
  ASSERT_TRUE(start.ok());
  const Position* h[] = {&*start};
  std::vector<float> f(kFeatureSize);
  ASSERT_TRUE(ExtractFeatures(h, f).ok());
  for (int k = 0; k < kHistory; ++k) {
    EXPECT_EQ(At(f, 0, 2 * k), 1) << k;       // black, to play, at A9
    EXPECT_EQ(At(f, 80, 2 * k + 1), 1) << k;  // white at J1
    EXPECT_EQ(PlaneSum(f, 2 * k) + PlaneSum(f, 2 * k + 1), 2) << k;
  }
}

TEST(GoFeaturesTest, BadArgumentsAreErrors) {
  std::vector<float> f(kFeatureSize);
  EXPECT_FALSE(ExtractFeatures({}, f).ok());
  Position p;
  const Position* h[] = {&p};
  std::vector<float> small(10);
  Status st = ExtractFeatures(h, small);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("10 floats"));
}

TEST(GoFeaturesTest, EightDistinctSymmetriesWithInverses) {
  std::set<std::vector<int>> images;
  for (int s = 0; s < kNumSymmetries; ++s) {
    std::vector<int> image;
    std::set<int> seen;
    for (int p = 0; p < kNumPoints; ++p) {
      image.push_back(SymmetryPoint(s, p));
      seen.insert(SymmetryPoint(s, p));
      EXPECT_EQ(SymmetryPoint(InverseSymmetry(s), SymmetryPoint(s, p)), p);
    }
    EXPECT_EQ(seen.size(), 81u) << s;
    EXPECT_EQ(SymmetryPoint(s, 40), 40);  // the centre is fixed
    images.insert(image);
  }
  EXPECT_EQ(images.size(), 8u);
  EXPECT_EQ(SymmetryPoint(0, 5), 5);
}

TEST(GoFeaturesTest, SymmetryMovesFeaturesAndPolicyAlike) {
  Position p;
  ASSERT_TRUE(p.Play(Pt("B8")).ok());
  const Position* h[] = {&p};
  std::vector<float> f(kFeatureSize), g(kFeatureSize);
  ASSERT_TRUE(ExtractFeatures(h, f).ok());
  for (int s = 0; s < kNumSymmetries; ++s) {
    ApplySymmetryToFeatures(s, f.data(), g.data());
    EXPECT_EQ(At(g, SymmetryPoint(s, Pt("B8")), 1), 1) << s;  // black stone, white to play
    // A policy on the transformed board, mapped back, lands on B8.
    std::vector<float> pol(kNumMoves, 0), back(kNumMoves);
    pol[SymmetryPoint(s, Pt("B8"))] = 1;
    pol[kPass] = 0.5f;
    ApplySymmetryToPolicy(InverseSymmetry(s), pol.data(), back.data());
    EXPECT_EQ(back[Pt("B8")], 1) << s;
    EXPECT_EQ(back[kPass], 0.5f);
  }
}

}  // namespace
}  // namespace podbench::minigo
