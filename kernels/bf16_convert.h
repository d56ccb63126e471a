// Private to kernels/: the ISA variants of ConvertToBf16 (kernels/bf16.h),
// each in bf16_convert__<isa>.cc with that ISA's flags; bf16.cc picks one.
#pragma once

#include <cstdint>

#include "kernels/bf16.h"

namespace podbench::kernels::bf16_internal {

void ConvertToBf16_Avx2(const float* src, Bf16* dst, long n);
void ConvertToBf16_Avx512f(const float* src, Bf16* dst, long n);
void ConvertToFloat_Avx2(const Bf16* src, float* dst, long n);
void RoundToBf16_Avx2(const float* src, float* dst, long n);
void RoundToBf16Runs8_Avx2(const float* src, long runs, float* dst, const std::int64_t* run_offsets);
void RoundToBf16Runs8_Avx512f(const float* src, long runs, float* dst, const std::int64_t* run_offsets);

}  // namespace podbench::kernels::bf16_internal
