// The functional SSD: the architecture of MLPerf v0.6's SSD-ResNet34 (Google's
// TF code, ../shared/reference/google-v0.6-implementation.md section 2) at a
// size a 2-core machine trains in minutes, as a list of ops on numbered
// tensors with per-image shapes.
//
//   conv0 7x7/2 + BN + ReLU, max pool 3x3/2            (ResNet stem)
//   stage 1..3 of basic blocks (two 3x3 convs with BN, identity or 1x1
//   projection shortcut), widths w, 2w, 4w; stage 2 downsamples, stage 3
//   runs at stride 1 as Google's does                   -> level 0 (stride 8)
//   extra levels until 1x1: a 1x1 conv to 2w then a 3x3 conv to 4w, stride 2
//   (pad 1), or stride 1 pad 0 on a 3x3 map (the reference's 5->3->1)
//   per level a 3x3 head conv with bias: for each of the level's anchors,
//   `classes + 1` class logits (0 = background) then 4 box offsets (the
//   reference's separate class and box convs, as one conv of both filters)
//
// The anchors keep the reference's scale for each level's stride (21 pixels
// at stride 8, 45 at 16, 99 at 32, 153 at 64, 207 at 100, 261 at 300, and
// the growth 315/261 past the last level), which keeps its density of
// anchors per object, and its aspect ratios ({2} on the first and the last
// two levels, {2, 3} between).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/detection/anchors.h"

namespace podbench::ssd {

struct SsdConfig {
  int image_size = 64;                 // square RGB input
  int classes = 6;                     // object classes; the heads add the background
  int width = 16;                      // stage 1's channels (ResNet-34: 64)
  std::array<int, 3> blocks = {1, 1, 1};  // basic blocks per stage (ResNet-34: 3, 4, 6)

  // InvalidArgument naming the field. image_size must be a multiple of 8, >= 16.
  Status Validate() const;
};

enum class OpKind { kConv, kBatchNorm, kRelu, kAdd, kMaxPool };
const char* OpKindName(OpKind k);

struct TensorShape {
  int h = 0, w = 0, c = 0;  // per image, NHWC
  int64_t elems() const { return int64_t{h} * w * c; }
};

struct Op {
  std::string name;  // e.g. "stage2.block0.conv1", "head3"
  OpKind kind = OpKind::kConv;
  int in = 0, in2 = -1, out = 0;  // tensor ids (in2: the add's second input)
  int kernel = 1, stride = 1, pad = 0;  // conv and max pool
  bool bias = false;                    // conv with bias (the heads)
  int64_t param = -1;  // conv: weights [k, k, in_c, out_c] then bias; BN: gamma then beta
  int64_t params = 0;
};

struct SsdNet {
  SsdConfig config;
  std::vector<TensorShape> tensors;  // tensor 0 is the image
  std::vector<Op> ops;               // in execution order
  std::vector<int> level_outputs;    // per level: the head's output tensor
  detection::AnchorConfig anchors;
  int64_t num_params = 0;
  int classes_with_background() const { return config.classes + 1; }
  int pred_width() const { return config.classes + 1 + 4; }  // per anchor: logits, box
  // Forward multiply-adds per image.
  int64_t Macs() const;
};

// REQUIRES: config.Validate().ok().
SsdNet BuildSsdNet(const SsdConfig& config);

}  // namespace podbench::ssd
