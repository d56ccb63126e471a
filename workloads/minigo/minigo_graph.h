// MiniGo's 9x9 network of MLPerf v0.6 as a projection graph (minigo.cc
// registers it as "minigo").
//
// The network, as the v0.6 reference defines it (NVIDIA's submission of the
// reference code, minigo/dual_net.py with ml_perf/flags/9/architecture.flags;
// ../shared/reference/minigo-v0.6.md), per board position:
//   - 9x9x17 input planes; a 3x3 convolution to 32 channels, batch norm, ReLU;
//   - 9 residual blocks: 3x3 conv, BN, ReLU, 3x3 conv, BN, add, ReLU;
//     convolutions without bias, batch norm with scale and centre;
//   - policy head: 1x1 conv to 2, BN without scale or centre, ReLU, dense to
//     82 logits (81 points and pass);
//   - value head: 1x1 conv to 1, BN without scale or centre, ReLU, dense to
//     64 with ReLU, dense to 1, tanh;
//   - training: policy cross-entropy and the value's squared error; the eval
//     list is one self-play inference (the same forward, BN on its moving
//     statistics, a softmax over the 82 moves).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "workloads/projection/graph.h"

namespace podbench::minigo {

struct MiniGoGraphOptions {
  int64_t board = 9;
  int64_t input_planes = 17;
  int64_t conv_width = 32;
  int64_t trunk_layers = 9;
  int64_t fc_width = 64;
};

// The graph. InvalidArgument naming the option unless every size is >= 1.
Result<projection::ModelGraph> BuildMiniGoGraph(const MiniGoGraphOptions& options = {});


}  // namespace podbench::minigo
