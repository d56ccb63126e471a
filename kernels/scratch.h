// Scratch memory for the kernels (packing panels, column buffers, bf16
// copies), reused across calls and threads. A process-wide pool rather than
// thread-local buffers: callers that run kernels on short-lived threads (the
// functional workloads start one thread per emulated core per step) would
// otherwise allocate and fault in fresh buffers on every step.
#pragma once

#include <cstddef>

namespace podbench::kernels {

// A 64-byte aligned block of at least `bytes` (contents undefined), borrowed
// from the pool for the lease's lifetime. Thread-safe; a lease itself is
// used by one thread at a time (or shared read-only).
class ScratchLease {
 public:
  explicit ScratchLease(std::size_t bytes);
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  void* get() const { return p_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p_);
  }

 private:
  void* p_;
  std::size_t size_;
};

}  // namespace podbench::kernels
