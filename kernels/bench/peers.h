// Private to kernels/bench: OpenBLAS, run at the same shapes as the podbench
// kernels in the same process (oneDNN's peers come from kernels/onednn).
#pragma once

#include <cstdint>

namespace podbench::kernels::bench {

// OpenBLAS's thread count (its own pthreads).
void SetOpenBlasThreads(int threads);

// Whether OpenBLAS could be loaded. OpenBLAS is dlopen()ed on first use, not
// linked: its thread pool starts when the library loads and busy-waits on the
// other cores for about 0.1 s, which every podbench command would pay.
bool OpenBlasAvailable();

// C = A * B, row-major, fp32. REQUIRES: OpenBlasAvailable().
void OpenBlasSgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float* c);

}  // namespace podbench::kernels::bench
