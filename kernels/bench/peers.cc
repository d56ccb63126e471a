#include "kernels/bench/peers.h"

#include <cblas.h>
#include <dlfcn.h>

namespace podbench::kernels::bench {
namespace {

// The two OpenBLAS entry points the bench uses, resolved from the library
// CMake found (PODBENCH_OPENBLAS_SO), else the runtime's libopenblas.so.0.
struct OpenBlas {
  void (*set_num_threads)(int) = nullptr;
  decltype(&cblas_sgemm) sgemm = nullptr;
};

const OpenBlas& Blas() {
  static const OpenBlas blas = [] {
    OpenBlas b;
    void* h = dlopen(PODBENCH_OPENBLAS_SO, RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!h) return b;
    b.set_num_threads = reinterpret_cast<void (*)(int)>(dlsym(h, "openblas_set_num_threads"));
    b.sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(h, "cblas_sgemm"));
    if (!b.set_num_threads || !b.sgemm) b = OpenBlas{};
    return b;
  }();
  return blas;
}

}  // namespace

bool OpenBlasAvailable() { return Blas().sgemm != nullptr; }

void SetOpenBlasThreads(int threads) {
  if (OpenBlasAvailable()) Blas().set_num_threads(threads);
}

void OpenBlasSgemm(std::int64_t m, std::int64_t n, std::int64_t k, const float* a, const float* b,
                   float* c) {
  Blas().sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(m), blasint(n), blasint(k), 1.0f,
              a, blasint(k), b, blasint(n), 0.0f, c, blasint(n));
}

}  // namespace podbench::kernels::bench
