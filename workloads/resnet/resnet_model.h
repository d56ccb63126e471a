// ResNet v1.5 as a list of layers with shapes: the one description that both
// modes use (functional mode runs it on the kernels, projected mode prices it
// with the kernels' TPU-v3 cost functions).
//
// v1.5: in a bottleneck that downsamples, the stride sits on the 3x3
// convolution, not on the first 1x1. Shortcuts are identity, or a strided 1x1
// projection + batch norm where the shape changes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"

namespace podbench::resnet {

struct ResNetConfig {
  int image_size = 224;
  int num_classes = 1000;
  int width = 64;                        // channels of the stem; stage s has width << s
  std::array<int, 4> blocks = {3, 4, 6, 3};  // bottlenecks per stage (ResNet-50)
  int expansion = 4;                     // bottleneck output = 4 x its width

  // The full ResNet-50 v1.5 of MLPerf.
  static ResNetConfig ResNet50() { return ResNetConfig{}; }
  Status Validate() const;
};

enum class LayerKind {
  kConv,       // no bias (followed by batch norm)
  kBatchNorm,  // per-channel scale and shift, batch statistics
  kRelu,
  kMaxPool,
  kAvgPool,    // global average pool
  kAdd,        // residual add (shortcut + main path)
  kDense,      // fully connected with bias
  kSoftmaxXent,
};

const char* LayerKindName(LayerKind k);

// One layer, with per-image shapes (batch dimension left out).
struct Layer {
  std::string name;  // e.g. "stage2.block0.conv2"
  LayerKind kind = LayerKind::kConv;
  int in_h = 0, in_w = 0, in_c = 0;
  int out_h = 0, out_w = 0, out_c = 0;
  int kernel = 1, stride = 1, pad = 0;  // conv and pool

  int64_t params() const;        // trainable parameters
  int64_t macs() const;          // multiply-accumulates of the forward pass, per image
  int64_t in_elems() const { return int64_t{in_h} * in_w * in_c; }
  int64_t out_elems() const { return int64_t{out_h} * out_w * out_c; }
};

// The layers in execution order. REQUIRES: config.Validate().ok().
std::vector<Layer> BuildResNet(const ResNetConfig& config);

// The kernels' convolution shape of conv layer `l` for `batch` images: the
// one mapping from the layer list to kernels/, for running (functional mode)
// and, through resnet_graph.h, for pricing.
// REQUIRES: l.kind == LayerKind::kConv.
kernels::Conv2dShape ConvShapeOf(const Layer& l, int64_t batch);

int64_t TotalParams(const std::vector<Layer>& layers);
int64_t TotalMacs(const std::vector<Layer>& layers);

}  // namespace podbench::resnet
