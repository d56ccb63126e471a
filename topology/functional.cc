#include "topology/functional.h"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <thread>

namespace podbench::topology {

namespace {
// Automatic thread count: a worker per this many elements moved a step.
constexpr uint64_t kMinElementsPerThread = 1 << 15;
}  // namespace


CoreBuffers::CoreBuffers(DType dtype, uint64_t elements, int core_begin, int core_end)
    : dtype_(dtype),
      elements_(elements),
      core_begin_(core_begin),
      core_end_(core_end),
      data_(size_t(core_end - core_begin) * elements * BytesPerElement(dtype), 0) {}

float CoreBuffers::Get(int core, uint64_t i) const {
  const uint8_t* p = Data(core);
  if (dtype_ == DType::kF32) {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  uint16_t b;
  std::memcpy(&b, p + 2 * i, 2);
  return Bf16ToFloat(b);
}

void CoreBuffers::Set(int core, uint64_t i, float v) {
  uint8_t* p = Data(core);
  if (dtype_ == DType::kF32) {
    std::memcpy(p + 4 * i, &v, 4);
  } else {
    const uint16_t b = FloatToBf16(v);
    std::memcpy(p + 2 * i, &b, 2);
  }
}

void ApplyTransfer(DType dtype, TransferOp op, const uint8_t* src, uint8_t* dst, uint32_t count) {
  const size_t bpe = BytesPerElement(dtype);
  if (op == TransferOp::kCopy) {
    std::memmove(dst, src, count * bpe);
    return;
  }
  if (dtype == DType::kF32) {
    for (uint32_t i = 0; i < count; ++i) {
      float a, b;
      std::memcpy(&a, dst + 4 * i, 4);
      std::memcpy(&b, src + 4 * i, 4);
      a += b;
      std::memcpy(dst + 4 * i, &a, 4);
    }
  } else {
    for (uint32_t i = 0; i < count; ++i) {
      uint16_t a, b;
      std::memcpy(&a, dst + 2 * i, 2);
      std::memcpy(&b, src + 2 * i, 2);
      const uint16_t r = FloatToBf16(Bf16ToFloat(a) + Bf16ToFloat(b));
      std::memcpy(dst + 2 * i, &r, 2);
    }
  }
}

Status RunFunctional(const Schedule& schedule, CoreBuffers& buffers, int threads) {
  if (buffers.core_begin() > 0 || buffers.core_end() < schedule.num_cores ||
      buffers.elements() != schedule.elements) {
    return Status::InvalidArgument("buffers do not cover the schedule's cores and elements");
  }
  const bool automatic = threads <= 0;
  if (automatic) threads = static_cast<int>(std::min(8u, std::max(1u, std::thread::hardware_concurrency())));
  const int max_threads = threads;
  const DType dt = buffers.dtype();
  const size_t bpe = BytesPerElement(dt);
  auto apply = [&](const Transfer& t) {
    ApplyTransfer(dt, t.op, buffers.Data(t.src) + t.src_off * bpe, buffers.Data(t.dst) + t.dst_off * bpe,
                  t.count);
  };
  for (const Stage& stage : schedule.stages) {
    // Rounds: round r runs step r of every stream (streams touch disjoint elements).
    int rounds = 0;
    for (const Stream& s : stage.streams) rounds = std::max(rounds, s.num_steps());
    // Transfers of one round, gathered once per round.
    std::vector<const Transfer*> work;
    auto gather = [&](int r) {
      work.clear();
      for (const Stream& s : stage.streams) {
        if (r >= s.num_steps()) continue;
        for (uint32_t i = s.step_begin[r]; i < s.step_begin[r + 1]; ++i) work.push_back(&s.transfers[i]);
      }
    };
    // Automatic: steps too small to pay for a barrier run on this thread.
    threads = max_threads;
    if (automatic && rounds > 0) {
      uint64_t moved = 0;
      for (const Stream& s : stage.streams) {
        for (const Transfer& t : s.transfers) moved += t.count;
      }
      const uint64_t per_round = moved / uint64_t(rounds);
      threads = static_cast<int>(std::clamp<uint64_t>(per_round / kMinElementsPerThread, 1, max_threads));
    }
    if (threads == 1) {
      for (int r = 0; r < rounds; ++r) {
        gather(r);
        for (const Transfer* t : work) apply(*t);
      }
      continue;
    }
    std::atomic<size_t> next{0};
    int round = 0;
    gather(0);
    // The completion step runs on one thread while the others wait: it
    // gathers the next round's work.
    std::barrier sync(threads, [&]() noexcept {
      ++round;
      next.store(0, std::memory_order_relaxed);
      if (round < rounds) gather(round);
    });
    auto worker = [&] {
      while (round < rounds) {
        for (size_t i = next.fetch_add(16); i < work.size(); i = next.fetch_add(16)) {
          const size_t end = std::min(work.size(), i + 16);
          for (size_t j = i; j < end; ++j) apply(*work[j]);
        }
        sync.arrive_and_wait();
      }
    };
    std::vector<std::thread> pool;
    for (int i = 1; i < threads; ++i) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
  }
  return Status::Ok();
}

}  // namespace podbench::topology
