#include "kernels/scratch.h"

#include <cassert>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace podbench::kernels {
namespace {

// Free blocks, at most kMaxFree of them (the smallest go first when full).
constexpr std::size_t kMaxFree = 64;

struct Block {
  void* p;
  std::size_t size;
};

struct Pool {
  std::mutex mu;
  std::vector<Block> free;
};

Pool& ThePool() {
  static Pool* pool = new Pool;  // never destroyed: kernels may run during exit
  return *pool;
}

std::size_t Rounded(std::size_t bytes) {
  constexpr std::size_t kGranule = 4096;
  return (bytes + kGranule - 1) / kGranule * kGranule;
}

}  // namespace

ScratchLease::ScratchLease(std::size_t bytes) : p_(nullptr), size_(Rounded(bytes == 0 ? 1 : bytes)) {
  Pool& pool = ThePool();
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    // The smallest free block that fits.
    std::size_t best = pool.free.size();
    for (std::size_t i = 0; i < pool.free.size(); ++i) {
      if (pool.free[i].size >= size_ && (best == pool.free.size() || pool.free[i].size < pool.free[best].size)) {
        best = i;
      }
    }
    if (best < pool.free.size()) {
      p_ = pool.free[best].p;
      size_ = pool.free[best].size;
      pool.free[best] = pool.free.back();
      pool.free.pop_back();
      return;
    }
  }
  p_ = std::aligned_alloc(64, size_);
  if (p_ == nullptr) throw std::bad_alloc();
}

ScratchLease::~ScratchLease() {
  Pool& pool = ThePool();
  void* drop = nullptr;
  {
    std::lock_guard<std::mutex> lock(pool.mu);
    pool.free.push_back({p_, size_});
    if (pool.free.size() > kMaxFree) {
      std::size_t smallest = 0;
      for (std::size_t i = 1; i < pool.free.size(); ++i) {
        if (pool.free[i].size < pool.free[smallest].size) smallest = i;
      }
      drop = pool.free[smallest].p;
      pool.free[smallest] = pool.free.back();
      pool.free.pop_back();
    }
  }
  std::free(drop);
}

}  // namespace podbench::kernels
