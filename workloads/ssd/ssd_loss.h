// The SSD training loss of the MLPerf v0.6 reference, for one image:
//   (sum over positive anchors of smooth-L1(box offsets - encoded truth)
//    + sum over positives and mined negatives of softmax cross-entropy)
//   / number of positives,
// where the mined negatives are the `negatives_per_positive` x positives
// background anchors of highest cross-entropy (hard-negative mining,
// NEGS_PER_POSITIVE 3; lower anchor index first on equal loss). Smooth L1 is
// the Huber loss with delta 1 on each of the 4 offsets. An image without
// positives contributes 0.
#pragma once

#include <cstdint>

namespace podbench::ssd {

struct SsdLossParts {
  double loss = 0, box = 0, cls = 0;  // loss = (box + cls) / max(positives, 1)
  int64_t positives = 0, negatives = 0;  // negatives: mined
};

// pred: anchors x width, row a = [classes logits | 4 box offsets] (width =
// classes + 4); labels: anchors class indices (0 = background); targets:
// anchors x 4 encoded boxes (read where label > 0). Writes dpred (anchors x
// width) = scale x the gradient of the image's loss (dpred may be null).
// REQUIRES: classes >= 2, labels in [0, classes).
SsdLossParts SsdImageLoss(const float* pred, int width, int classes, const int32_t* labels, const float* targets,
                          int64_t anchors, int negatives_per_positive, float scale, float* dpred);

}  // namespace podbench::ssd
