// ResNet v1.5 as the projection layer sees it: a ModelGraph built from the
// layer list of resnet_model.h (the same description functional mode runs),
// at full size (ResNet-50, 224x224, 1000 classes) or at a functional run's
// size (its image side, width, blocks and classes).
//
// Ops, one per layer: convolutions (the stem needs no input gradient),
// batch norm, ReLU and the residual add fused into the convolution before
// them (as XLA fuses them), max and global average pooling, the dense head
// and the softmax cross-entropy (training only). Parameters: each
// convolution's kernel, each batch norm's scale and shift, the dense
// kernel and bias (25,557,032 for ResNet-50).
//
// Host work per image: the 224x224x3 (or the functional side's) bf16 image
// the host infeeds after decode, crop, flip and the cast, plus its int32
// label; per evaluation image the fp32 logits and label outfed, and an argmax
// over the logits on host 0.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "workloads/projection/graph.h"
#include "workloads/resnet/resnet_model.h"

namespace podbench::resnet {

// REQUIRES: config.Validate().ok().
projection::ModelGraph ResNetGraph(const ResNetConfig& config);

// The model zoo's entry: the full-size ResNet-50 v1.5.
projection::ModelGraph ResNet50Graph();


}  // namespace podbench::resnet
