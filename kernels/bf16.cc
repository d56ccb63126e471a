#include "kernels/bf16.h"

#include "kernels/bf16_convert.h"
#include "kernels/cpu_features.h"

namespace podbench::kernels {
namespace {

void ConvertToBf16_Scalar(const float* src, Bf16* dst, long n) {
  for (long i = 0; i < n; ++i) dst[i] = Bf16(src[i]);
}

using ConvertFn = void (*)(const float*, Bf16*, long);

ConvertFn PickConvert() {
  if (CpuSupports(Isa::kAvx512f)) return bf16_internal::ConvertToBf16_Avx512f;
  if (CpuSupports(Isa::kAvx2Fma)) return bf16_internal::ConvertToBf16_Avx2;
  return ConvertToBf16_Scalar;
}

}  // namespace

void ConvertToBf16(const float* src, Bf16* dst, long n) {
  static const ConvertFn convert = PickConvert();
  convert(src, dst, n);
}

void ConvertToFloat(const Bf16* src, float* dst, long n) {
  if (CpuSupports(Isa::kAvx2Fma)) {
    bf16_internal::ConvertToFloat_Avx2(src, dst, n);
    return;
  }
  for (long i = 0; i < n; ++i) dst[i] = src[i].ToFloat();
}

void RoundToBf16(const float* src, float* dst, long n) {
  if (CpuSupports(Isa::kAvx2Fma)) {
    bf16_internal::RoundToBf16_Avx2(src, dst, n);
    return;
  }
  for (long i = 0; i < n; ++i) dst[i] = RoundToBf16(src[i]);
}

bool SampledBf16Values(const float* src, long n, long samples) {
  if (n <= 0) return true;
  const long k = samples < 2 ? 1 : (samples < n ? samples : n);
  for (long i = 0; i < k; ++i) {
    // (n - 1) i / (k - 1) without overflow: long double holds 64-bit integers exactly.
    const long at = k == 1 ? 0 : long(static_cast<long double>(n - 1) * i / (k - 1));
    const float v = src[at];
    if (std::bit_cast<std::uint32_t>(RoundToBf16(v)) != std::bit_cast<std::uint32_t>(v)) return false;
  }
  return true;
}

void RoundToBf16Runs8(const float* src, long runs, float* dst, const std::int64_t* run_offsets) {
  if (CpuSupports(Isa::kAvx512f)) {
    bf16_internal::RoundToBf16Runs8_Avx512f(src, runs, dst, run_offsets);
    return;
  }
  if (CpuSupports(Isa::kAvx2Fma)) {
    bf16_internal::RoundToBf16Runs8_Avx2(src, runs, dst, run_offsets);
    return;
  }
  for (long r = 0; r < runs; ++r) {
    for (long k = 0; k < 8; ++k) dst[run_offsets[r] + k] = RoundToBf16(src[8 * r + k]);
  }
}

}  // namespace podbench::kernels
