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
  std::atomic<bool> busy_{false};  // a caller's region is running
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  // The current region: written by its caller and read by workers, both
  // under mu_, together with the generation bump. (Reading job_n_ without
  // the lock let a worker left out of one region take the next region's
  // job under the old generation and run its share twice.)
  const std::function<void(int)>* job_ = nullptr;
  int job_n_ = 0;
  std::atomic<long> generation_{0};  // also read without the lock, to spin on
  std::atomic<int> pending_{0};  // workers of the current region still running
  std::atomic<bool> stop_{false};
};

// The process-wide pool, sized to the hardware threads, created on first use.
ThreadPool& DefaultThreadPool();

}  // namespace podbench::kernels
