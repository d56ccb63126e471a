#include "workloads/minigo/go/features.h"

#include <algorithm>
#include <array>
#include <string>

namespace podbench::minigo {
namespace {

// s in 0..7: bit 0 transposes, bit 1 flips rows, bit 2 flips columns (applied
// in that order). These are the 8 elements of the dihedral group.
constexpr int MapPoint(int s, int p) {
  int r = p / kN;
  int c = p % kN;
  if (s & 1) std::swap(r, c);
  if (s & 2) r = kN - 1 - r;
  if (s & 4) c = kN - 1 - c;
  return r * kN + c;
}

constexpr std::array<std::array<int8_t, kNumPoints>, kNumSymmetries> BuildTable() {
  std::array<std::array<int8_t, kNumPoints>, kNumSymmetries> t{};
  for (int s = 0; s < kNumSymmetries; ++s)
    for (int p = 0; p < kNumPoints; ++p) t[s][p] = static_cast<int8_t>(MapPoint(s, p));
  return t;
}

constexpr auto kSymmetryTable = BuildTable();

constexpr std::array<int8_t, kNumSymmetries> BuildInverse() {
  std::array<int8_t, kNumSymmetries> inv{};
  for (int s = 0; s < kNumSymmetries; ++s)
    for (int t = 0; t < kNumSymmetries; ++t) {
      bool ok = true;
      for (int p = 0; p < kNumPoints && ok; ++p) ok = MapPoint(t, MapPoint(s, p)) == p;
      if (ok) inv[s] = static_cast<int8_t>(t);
    }
  return inv;
}

constexpr auto kInverse = BuildInverse();

}  // namespace

void ExtractFeaturesUnchecked(std::span<const Position* const> history, float* out) {
  std::fill(out, out + kFeatureSize, 0.0f);
  const Color me = history[0]->to_play();
  const int available = static_cast<int>(std::min<size_t>(history.size(), kHistory));
  for (int k = 0; k < kHistory; ++k) {
    const Position& pos = *history[std::min(k, available - 1)];
    for (int p = 0; p < kNumPoints; ++p) {
      const Color c = pos.at(p);
      if (c == Color::kEmpty) continue;
      out[p * kNumPlanes + 2 * k + (c == me ? 0 : 1)] = 1.0f;
    }
  }
  if (me == Color::kBlack) {
    for (int p = 0; p < kNumPoints; ++p) out[p * kNumPlanes + 16] = 1.0f;
  }
}

Status ExtractFeatures(std::span<const Position* const> history, std::span<float> out) {
  if (history.empty()) return Status::InvalidArgument("features: the history holds no position");
  for (const Position* p : history)
    if (p == nullptr) return Status::InvalidArgument("features: the history holds a null position");
  if (out.size() != static_cast<size_t>(kFeatureSize)) {
    return Status::InvalidArgument("features: the output holds " + std::to_string(out.size()) +
                                   " floats, not 9*9*17 = 1377");
  }
  ExtractFeaturesUnchecked(history, out.data());
  return Status::Ok();
}

int SymmetryPoint(int s, int p) { return kSymmetryTable[s][p]; }
int InverseSymmetry(int s) { return kInverse[s]; }

void ApplySymmetryToFeatures(int s, const float* in, float* out) {
  for (int p = 0; p < kNumPoints; ++p)
    std::copy(in + p * kNumPlanes, in + (p + 1) * kNumPlanes, out + kSymmetryTable[s][p] * kNumPlanes);
}

void ApplySymmetryToPolicy(int s, const float* in, float* out) {
  for (int p = 0; p < kNumPoints; ++p) out[kSymmetryTable[s][p]] = in[p];
  out[kPass] = in[kPass];
}

}  // namespace podbench::minigo
