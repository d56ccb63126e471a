// Private to kernels/bench: oneDNN and OpenBLAS run at the same shapes as the
// podbench kernels, in the same process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace podbench::kernels::bench {

// Thread counts for the peers' own runtimes (OpenBLAS pthreads, oneDNN OpenMP).
void SetPeerThreads(int threads);

// Whether OpenBLAS could be loaded. OpenBLAS is dlopen()ed on first use, not
// linked: its thread pool starts when the library loads and busy-waits on the
// other cores for about 0.1 s, which every podbench command would pay.
bool OpenBlasAvailable();

// C = A * B, row-major, fp32. REQUIRES: OpenBlasAvailable().
void OpenBlasSgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float* c);

// A ready-to-run oneDNN primitive with its own buffers.
class OneDnnOp {
 public:
  virtual ~OneDnnOp() = default;
  virtual void Run() = 0;
  // oneDNN's implementation name, e.g. "brg:avx2" or "ref:any".
  virtual std::string Impl() const = 0;
};

// C (f32) = A * B with A, B of `bf16` ? bf16 : f32, row-major.
std::unique_ptr<OneDnnOp> MakeOneDnnMatmul(std::int64_t m, std::int64_t n, std::int64_t k, bool bf16);

// NHWC forward convolution, f32, weights in oneDNN's preferred layout.
std::unique_ptr<OneDnnOp> MakeOneDnnConv(std::int64_t n, std::int64_t h, std::int64_t w,
                                         std::int64_t c, std::int64_t oc, std::int64_t kh,
                                         std::int64_t kw, std::int64_t stride, std::int64_t pad);

}  // namespace podbench::kernels::bench
