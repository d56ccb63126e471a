// Private to kernels/conv (and its tests): the explicit im2col forward pass,
// which Conv2dForward uses only when the selected GEMM cannot pack the input
// windows itself (e.g. the bf16-pair AVX-512 BF16 variant).
#pragma once

#include "kernels/conv/conv2d.h"

namespace podbench::kernels::conv_internal {

void Conv2dForwardExplicitIm2Col(const Conv2dShape& s, const float* x, const float* filter, float* y,
                                 Precision prec, int threads);

}  // namespace podbench::kernels::conv_internal
