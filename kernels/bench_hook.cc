#include "kernels/bench_hook.h"

namespace podbench::kernels {
namespace {
BenchRunner& Slot() {
  static BenchRunner runner = nullptr;
  return runner;
}
}  // namespace

void SetBenchRunner(BenchRunner runner) { Slot() = runner; }
BenchRunner GetBenchRunner() { return Slot(); }

}  // namespace podbench::kernels
