#include "kernels/cpu_features.h"

#include <cpuid.h>

#include <thread>

namespace podbench::kernels {
namespace {

bool OsSavesAvx512State() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return false;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  // XMM, YMM, opmask, ZMM_Hi256, Hi16_ZMM.
  return (lo & 0xe6u) == 0xe6u;
}

bool CpuidAvx512Bf16() {
  unsigned a, b, c, d;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 1, a, b, c, d);
  return (a & (1u << 5)) != 0;  // CPUID.(EAX=7,ECX=1):EAX[5] = AVX512_BF16
}

CpuFeatures Detect() {
  __builtin_cpu_init();
  CpuFeatures f;
  f.avx2 = __builtin_cpu_supports("avx2");
  f.fma = __builtin_cpu_supports("fma");
  f.avx512f = __builtin_cpu_supports("avx512f") && OsSavesAvx512State();
  f.avx512bf16 = f.avx512f && CpuidAvx512Bf16();
  return f;
}

}  // namespace

const CpuFeatures& DetectedCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

bool CpuSupports(Isa isa) {
  const CpuFeatures& f = DetectedCpuFeatures();
  switch (isa) {
    case Isa::kScalar: return true;
    case Isa::kAvx2Fma: return f.avx2 && f.fma;
    case Isa::kAvx512f: return f.avx512f;
    case Isa::kAvx512Bf16: return f.avx512bf16;
  }
  return false;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kAvx2Fma: return "avx2_fma";
    case Isa::kAvx512f: return "avx512f";
    case Isa::kAvx512Bf16: return "avx512bf16";
  }
  return "?";
}

int HardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

}  // namespace podbench::kernels
