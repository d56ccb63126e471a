// The network's input: MiniGo's 17 AlphaGo Zero feature planes of a 9x9
// position, and the 8 board symmetries its search applies at random to each
// evaluation.
//
// Planes (features.py:56-81 stone_features and color_to_play_feature, the
// NEW_FEATURES set at features.py:142-145; tensorflow/minigo 8bc6373), laid
// out NHWC as [9][9][17], i.e. index (row * 9 + col) * 17 + plane:
//   - plane 2k   (k = 0..7): 1 where the player to move NOW had a stone k
//     moves ago (k = 0 is the current board);
//   - plane 2k+1 (k = 0..7): 1 where the opponent had a stone k moves ago;
//   - plane 16: 1 everywhere if black is to move, else 0.
// When fewer than 8 boards exist (the start of a game), the oldest board
// available repeats (features.py:67-69). Passes count as moves: the board
// one pass ago is the same board.
//
// Symmetries (cc/symmetries.h; the search draws one per evaluation when
// random_symmetry is on, cc/mcts_player.cc:371-378): the 8 elements of the
// square's dihedral group act on the 9x9 grid; a policy computed on
// transformed features is mapped back by the inverse, pass unchanged.
#pragma once

#include <span>

#include "base/status.h"
#include "workloads/minigo/go/board.h"

namespace podbench::minigo {

inline constexpr int kNumPlanes = 17;
inline constexpr int kHistory = 8;  // boards per colour in the planes
inline constexpr int kFeatureSize = kNumPoints * kNumPlanes;  // 1377 floats

// `history[k]` is the position k moves ago, history[0] the current one;
// 1..8 entries (more are ignored). `out` must hold kFeatureSize floats.
// Errors: an empty history or a wrong output size (InvalidArgument).
Status ExtractFeatures(std::span<const Position* const> history, std::span<float> out);
// REQUIRES: 1 <= history.size(), out.size() == kFeatureSize. No checks.
void ExtractFeaturesUnchecked(std::span<const Position* const> history, float* out);

inline constexpr int kNumSymmetries = 8;
// Symmetry s maps point p to SymmetryPoint(s, p); s = 0 is the identity.
// REQUIRES: 0 <= s < 8, 0 <= p < 81.
int SymmetryPoint(int s, int p);
// The symmetry that undoes s.
int InverseSymmetry(int s);
// out[SymmetryPoint(s, p)] = in[p] for each point's 17 planes. REQUIRES:
// both hold kFeatureSize floats and do not overlap.
void ApplySymmetryToFeatures(int s, const float* in, float* out);
// out[SymmetryPoint(s, p)] = in[p] for the 81 points; out[kPass] = in[kPass].
// REQUIRES: both hold kNumMoves floats and do not overlap.
void ApplySymmetryToPolicy(int s, const float* in, float* out);

}  // namespace podbench::minigo
