// A fixed pool of worker threads for the kernels (no OpenMP). One parallel
// region at a time; the calling thread takes part as worker 0. Safe to call
// from several threads (emulated cores) and from inside a task: a call that
// finds the pool busy runs its tasks one after another on the caller.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace podbench::kernels {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1. Starts threads - 1 workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return int(workers_.size()) + 1; }

  // Runs fn(t) for t in [0, n) with n <= threads(), each on its own thread
  // when the pool is free, and returns when all have finished.
  void Run(int n, const std::function<void(int)>& fn);

 private:
  void WorkerLoop(int index);

  std::vector<std::thread> workers_;
  std::mutex run_mu_;  // held by the caller whose region the workers serve
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  // Written by the region's caller before it bumps generation_ (seq_cst), read
  // by workers after they see the new generation.
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<int> job_n_{0};
  std::atomic<long> generation_{0};
  std::atomic<int> pending_{0};  // workers of the current region still running
  std::atomic<bool> stop_{false};
};

// The process-wide pool, sized to the hardware threads, created on first use.
ThreadPool& DefaultThreadPool();

}  // namespace podbench::kernels
