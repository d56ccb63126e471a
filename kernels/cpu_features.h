// The instruction sets of the CPU we run on, detected once (cpuid + OS
// support for the register state, through __builtin_cpu_supports).
#pragma once

#include <string>

namespace podbench::kernels {

enum class Isa { kScalar, kAvx2Fma, kAvx512f, kAvx512Bf16 };

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bf16 = false;
};

// Detected once; the same answer for the life of the process.
const CpuFeatures& DetectedCpuFeatures();

// True when this CPU can run code compiled for `isa`.
bool CpuSupports(Isa isa);

// "scalar", "avx2_fma", "avx512f", "avx512bf16".
const char* IsaName(Isa isa);

// Number of hardware threads (at least 1).
int HardwareThreads();

}  // namespace podbench::kernels
