// The instruction sets of the CPU we run on, detected once (CPUID, plus the
// OS's consent to save each register state: XGETBV, and for AMX the Linux
// per-process permission).
//
// PODBENCH_CPU_ISA=<isa> (an IsaName: scalar, avx2_fma, avx512f, avx512bf16,
// amx_bf16) caps what is reported, so a CPU can stand in for an older one:
// every ISA above the cap reads as absent, for the kernels' dispatch, their
// tests and oneDNN alike (kernels/onednn caps oneDNN to the same ISA).
#pragma once

#include <string>

#include "base/status.h"

namespace podbench::kernels {

// In increasing order: each implies the ones before it on every CPU we run on.
enum class Isa { kScalar, kAvx2Fma, kAvx512f, kAvx512Bf16, kAmxBf16 };

struct CpuFeatures {
  bool avx2 = false;
  bool fma = false;
  bool avx512f = false;
  bool avx512bw = false;    // with VL and DQ ("AVX-512 core")
  bool avx512bf16 = false;  // vdpbf16ps, vcvtne2ps2bf16
  bool amx_bf16 = false;    // AMX-TILE + AMX-BF16, OS tile state and permission granted
  std::string model;        // the CPUID brand string, e.g. "Intel(R) Xeon(R) Processor"
  // The ISA flags above that are set, space-separated in that order ("avx2 fma
  // avx512f ..."), followed by " (capped at <isa> by PODBENCH_CPU_ISA)" when capped.
  std::string flags;
  bool capped = false;      // PODBENCH_CPU_ISA lowered what the CPU has
};

// Detected once; the same answer for the life of the process.
const CpuFeatures& DetectedCpuFeatures();

// True when this CPU (after the PODBENCH_CPU_ISA cap) can run code compiled for `isa`.
bool CpuSupports(Isa isa);

// The highest Isa CpuSupports.
Isa MaxSupportedIsa();

// "scalar", "avx2_fma", "avx512f", "avx512bf16", "amx_bf16".
const char* IsaName(Isa isa);

// InvalidArgument naming the variable and the accepted values when
// PODBENCH_CPU_ISA is set to something that is not an IsaName (detection then
// ignores it); OK otherwise.
Status CpuIsaCapStatus();

// Number of hardware threads (at least 1).
int HardwareThreads();

}  // namespace podbench::kernels
