#include "kernels/cpu_features.h"

#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <utility>
#include <cstring>
#include <thread>

namespace podbench::kernels {
namespace {

constexpr Isa kAllIsas[] = {Isa::kScalar, Isa::kAvx2Fma, Isa::kAvx512f, Isa::kAvx512Bf16, Isa::kAmxBf16};
constexpr const char* kCapVariable = "PODBENCH_CPU_ISA";

unsigned long long Xcr0() {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

struct Leaf7 {
  unsigned ebx = 0, ecx = 0, edx = 0, eax1 = 0;  // eax1: sub-leaf 1's EAX
};

Leaf7 CpuidLeaf7() {
  Leaf7 l;
  if (__get_cpuid_max(0, nullptr) < 7) return l;
  unsigned a, b, c, d;
  __cpuid_count(7, 0, a, b, c, d);
  l.ebx = b;
  l.ecx = c;
  l.edx = d;
  if (a >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    l.eax1 = a;
  }
  return l;
}

// Linux keeps AMX tile data off until a process asks (arch_prctl
// ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA, Linux 5.16+); true when granted.
bool RequestAmxPermission() {
#ifdef SYS_arch_prctl
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
  return false;
#endif
}

std::string BrandString() {
  unsigned regs[12] = {};
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000004u) return "unknown x86-64";
  for (unsigned i = 0; i < 3; ++i) {
    __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
  }
  char text[49] = {};
  std::memcpy(text, regs, 48);
  std::string s(text);
  const auto first = s.find_first_not_of(' ');
  const auto last = s.find_last_not_of(' ');
  return first == std::string::npos ? "unknown x86-64" : s.substr(first, last - first + 1);
}

// True and *cap set when PODBENCH_CPU_ISA names an Isa; false when unset or invalid.
bool ParseCap(Isa* cap) {
  const char* v = std::getenv(kCapVariable);
  if (v == nullptr || *v == '\0') return false;
  for (Isa isa : kAllIsas) {
    if (std::strcmp(v, IsaName(isa)) == 0) {
      *cap = isa;
      return true;
    }
  }
  return false;
}

CpuFeatures Detect() {
  __builtin_cpu_init();
  CpuFeatures f;
  f.model = BrandString();
  const unsigned long long xcr0 = Xcr0();
  const bool os_avx = (xcr0 & 0x6u) == 0x6u;              // XMM, YMM
  const bool os_avx512 = (xcr0 & 0xe6u) == 0xe6u;         // + opmask, ZMM_Hi256, Hi16_ZMM
  const bool os_amx = (xcr0 & 0x60000u) == 0x60000u;      // XTILECFG, XTILEDATA
  const Leaf7 l7 = CpuidLeaf7();
  f.avx2 = os_avx && __builtin_cpu_supports("avx2");
  f.fma = os_avx && __builtin_cpu_supports("fma");
  f.avx512f = os_avx512 && (l7.ebx & (1u << 16)) != 0;
  f.avx512bw = f.avx512f && (l7.ebx & (1u << 30)) && (l7.ebx & (1u << 31)) && (l7.ebx & (1u << 17));
  f.avx512bf16 = f.avx512bw && (l7.eax1 & (1u << 5)) != 0;  // CPUID.(7,1):EAX[5]
  const bool amx_cpu = (l7.edx & (1u << 24)) && (l7.edx & (1u << 22));  // AMX-TILE, AMX-BF16
  Isa cap = Isa::kAmxBf16;
  const bool has_cap = ParseCap(&cap);
  f.amx_bf16 = f.avx512bf16 && amx_cpu && os_amx && cap >= Isa::kAmxBf16 && RequestAmxPermission();
  if (has_cap) {
    const bool before[] = {f.avx2, f.fma, f.avx512f, f.avx512bf16, f.amx_bf16};
    if (cap < Isa::kAmxBf16) f.amx_bf16 = false;
    if (cap < Isa::kAvx512Bf16) f.avx512bf16 = false;
    if (cap < Isa::kAvx512f) f.avx512f = f.avx512bw = false;
    if (cap < Isa::kAvx2Fma) f.avx2 = f.fma = false;
    const bool after[] = {f.avx2, f.fma, f.avx512f, f.avx512bf16, f.amx_bf16};
    f.capped = !std::equal(std::begin(before), std::end(before), std::begin(after));
  }
  const std::pair<bool, const char*> names[] = {{f.avx2, "avx2"},         {f.fma, "fma"},
                                                {f.avx512f, "avx512f"},   {f.avx512bw, "avx512bw/vl/dq"},
                                                {f.avx512bf16, "avx512_bf16"}, {f.amx_bf16, "amx_tile/amx_bf16"}};
  for (const auto& [set, name] : names) {
    if (!set) continue;
    if (!f.flags.empty()) f.flags += ' ';
    f.flags += name;
  }
  if (f.flags.empty()) f.flags = "x86-64 baseline";
  if (has_cap) f.flags += std::string(" (capped at ") + IsaName(cap) + " by " + kCapVariable + ")";
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
    case Isa::kAmxBf16: return f.amx_bf16;
  }
  return false;
}

Isa MaxSupportedIsa() {
  Isa best = Isa::kScalar;
  for (Isa isa : kAllIsas) {
    if (CpuSupports(isa)) best = isa;
  }
  return best;
}

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar: return "scalar";
    case Isa::kAvx2Fma: return "avx2_fma";
    case Isa::kAvx512f: return "avx512f";
    case Isa::kAvx512Bf16: return "avx512bf16";
    case Isa::kAmxBf16: return "amx_bf16";
  }
  return "?";
}

Status CpuIsaCapStatus() {
  const char* v = std::getenv(kCapVariable);
  Isa cap;
  if (v == nullptr || *v == '\0' || ParseCap(&cap)) return Status::Ok();
  std::string names;
  for (Isa isa : kAllIsas) names += std::string(names.empty() ? "" : ", ") + IsaName(isa);
  return Status::InvalidArgument(std::string(kCapVariable) + "=" + v + ": not an instruction set (one of " +
                                 names + ")");
}

int HardwareThreads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : int(n);
}

}  // namespace podbench::kernels
