// The podbench executable's global operator new: every block of 1 KiB or more
// starts on a 64-byte boundary (a cache line, an AVX-512 vector, an AMX tile
// row), as the tensor allocators of TensorFlow and PyTorch guarantee.
//
// Why: podbench's tensors are std::vector<float> and the like, which glibc
// places 16 bytes past a boundary. oneDNN's AMX matmul then splits every
// 64-byte row load and store across two cache lines: on a Xeon with AMX its
// bf16 GEMM on such operands ran at 0.75x (m=n=k=512) to 0.94x (2048) of the
// same primitive on aligned ones (`podbench bench`, 2026-12-01; 0.97-1.00x
// with this file). Every kernel and every peer in `podbench bench` now sees
// operands placed as the workloads' are.
//
// Contract: the replaceable forms of [new.delete.single] and [new.delete.array]
// (the array forms and the nothrow forms of libstdc++ call these). Blocks come
// from malloc or aligned_alloc and go back through free, which takes both; the
// align_val_t forms are libstdc++'s own (aligned_alloc / free) and stay
// compatible. Under a sanitizer the runtime's operator new is kept, so its
// new/delete mismatch checks still run.
#include "harness/aligned_new.h"

#include <cstddef>
#include <cstdlib>
#include <new>

#include "base/sanitizers.h"

namespace podbench {

bool AlignedNewInstalled() {
#ifdef PODBENCH_SANITIZED
  return false;
#else
  return true;
#endif
}

}  // namespace podbench

#ifndef PODBENCH_SANITIZED

namespace {

constexpr std::size_t kAlignFrom = 1024;
constexpr std::size_t kAlign = 64;

void* Allocate(std::size_t n) {
  for (;;) {
    void* p = n >= kAlignFrom ? std::aligned_alloc(kAlign, (n + kAlign - 1) / kAlign * kAlign)
                              : std::malloc(n == 0 ? 1 : n);
    if (p != nullptr) return p;
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) throw std::bad_alloc();
    handler();
  }
}

}  // namespace

void* operator new(std::size_t n) { return Allocate(n); }
void* operator new[](std::size_t n) { return Allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

#endif  // PODBENCH_SANITIZED
