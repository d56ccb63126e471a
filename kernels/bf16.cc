#include "kernels/bf16.h"

namespace podbench::kernels {

void ConvertToBf16(const float* src, Bf16* dst, long n) {
  for (long i = 0; i < n; ++i) dst[i] = Bf16(src[i]);
}

void ConvertToFloat(const Bf16* src, float* dst, long n) {
  for (long i = 0; i < n; ++i) dst[i] = src[i].ToFloat();
}

}  // namespace podbench::kernels
