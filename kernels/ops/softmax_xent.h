// Softmax cross-entropy with label smoothing, and masked softmax (attention).
#pragma once

#include <cstdint>

namespace podbench::kernels {

// logits: rows x classes; labels: rows class indices in [0, classes).
// The target distribution puts 1 - smoothing + smoothing / classes on the label
// and smoothing / classes elsewhere. Returns the mean loss over rows and
// writes dlogits (rows x classes) = (softmax - target) / rows, the gradient of
// that mean. dlogits may be null.
// REQUIRES: rows >= 1, classes >= 1, 0 <= smoothing <= 1.
double SoftmaxCrossEntropy(const float* logits, const std::int32_t* labels, std::int64_t rows,
                           std::int64_t classes, float smoothing, float* dlogits);

// In-place row softmax of x (rows x cols). mask (rows x cols, may be null):
// entries where mask == 0 get probability 0. A row with no unmasked entry
// becomes all zeros.
void MaskedSoftmax(float* x, const std::uint8_t* mask, std::int64_t rows, std::int64_t cols);
// dx = y * (dy - sum(dy * y)) per row, y the softmax output.
void SoftmaxBackward(const float* y, const float* dy, float* dx, std::int64_t rows, std::int64_t cols);

}  // namespace podbench::kernels
