#include "kernels/thread_pool.h"

#include <cassert>

#include "kernels/cpu_features.h"

namespace podbench::kernels {

ThreadPool::ThreadPool(int threads) {
  assert(threads >= 1);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
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
  std::unique_lock<std::mutex> region(run_mu_, std::try_to_lock);
  if (!region.owns_lock()) {
    for (int t = 0; t < n; ++t) fn(t);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    job_n_ = n;
    pending_ = n - 1;
    ++generation_;
  }
  start_cv_.notify_all();
  fn(0);
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::WorkerLoop(int index) {
  long seen = 0;
  for (;;) {
    const std::function<void(int)>* job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (index >= job_n_) continue;
      job = job_;
    }
    (*job)(index);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

ThreadPool& DefaultThreadPool() {
  static ThreadPool pool(HardwareThreads());
  return pool;
}

}  // namespace podbench::kernels
