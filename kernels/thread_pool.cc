#include "kernels/thread_pool.h"

#include <cassert>

#include "kernels/cpu_features.h"

namespace podbench::kernels {
namespace {

// Spin this many pause instructions (tens of microseconds) for the next job
// or for the workers to finish before blocking: a GEMM region lasts
// milliseconds, and a futex wake-up on a busy machine can cost as much.
constexpr int kSpinIterations = 4000;

void CpuRelax() { __builtin_ia32_pause(); }

}  // namespace

ThreadPool::ThreadPool(int threads) {
  assert(threads >= 1);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_.store(true);
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Run(int n, const std::function<void(int)>& fn) {
  assert(n >= 1 && n <= threads());
  if (n == 1) {
    fn(0);
    return;
  }
  // A flag, not a mutex: a task running on the region's own caller may call
  // Run again (try_lock on a mutex the thread holds is undefined).
  bool free = false;
  if (!busy_.compare_exchange_strong(free, true)) {
    for (int t = 0; t < n; ++t) fn(t);
    return;
  }
  {
    // The region's job, size and generation change together, under mu_:
    // a worker that reads them (under mu_) sees one region's, never a mix.
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_n_ = n;
    pending_.store(n - 1);
    generation_.fetch_add(1);
  }
  start_cv_.notify_all();
  fn(0);
  for (int i = 0; i < kSpinIterations && pending_.load() != 0; ++i) CpuRelax();
  {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [this] { return pending_.load() == 0; });
    job_ = nullptr;
  }
  busy_.store(false);
}

void ThreadPool::WorkerLoop(int index) {
  long seen = 0;
  for (;;) {
    for (int i = 0; i < kSpinIterations && generation_.load() == seen && !stop_.load(); ++i) CpuRelax();
    const std::function<void(int)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_.load() || generation_.load() != seen; });
      if (stop_.load()) return;
      seen = generation_.load();
      if (index < job_n_) job = job_;
    }
    if (job == nullptr) continue;  // not part of this region
    (*job)(index);
    if (pending_.fetch_sub(1) == 1) {
      std::lock_guard<std::mutex> lock(mu_);
      done_cv_.notify_one();
    }
  }
}

ThreadPool& DefaultThreadPool() {
  static ThreadPool pool(HardwareThreads());
  return pool;
}

}  // namespace podbench::kernels
