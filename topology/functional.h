// Functional execution: runs a Schedule on real per-core buffers, moving and
// reducing the data, with worker threads in one process (see mpi_functional.h
// for the same over MPI ranks).
//
// Determinism: a Schedule's steps are race-free (ValidateSchedule), each
// stream's steps run in order and stages in order, so the result is bitwise
// the same for any thread count. bf16 reduction adds in fp32 and rounds to
// nearest even once per transfer, as a bf16 link transfer would.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "base/status.h"
#include "kernels/bf16.h"
#include "topology/schedule.h"

namespace podbench::topology {

enum class DType { kF32, kBF16 };
inline int BytesPerElement(DType d) { return d == DType::kF32 ? 4 : 2; }

// bf16 <-> fp32 with the TPU's semantics: kernels/bf16.h owns them (round to
// nearest even, NaN stays NaN); these name them for the collectives' buffers.
inline uint16_t FloatToBf16(float f) { return kernels::Bf16::RoundFromFloat(f); }
inline float Bf16ToFloat(uint16_t b) { return kernels::Bf16::FromBits(b).ToFloat(); }

// The buffers of cores [core_begin, core_end), `elements` each.
class CoreBuffers {
 public:
  CoreBuffers(DType dtype, uint64_t elements, int core_begin, int core_end);

  DType dtype() const { return dtype_; }
  uint64_t elements() const { return elements_; }
  int core_begin() const { return core_begin_; }
  int core_end() const { return core_end_; }
  bool Holds(int core) const { return core >= core_begin_ && core < core_end_; }

  // REQUIRES: Holds(core). Raw bytes of one core's buffer.
  uint8_t* Data(int core) { return data_.data() + Offset(core); }
  const uint8_t* Data(int core) const { return data_.data() + Offset(core); }
  // Element i of `core` as a float (bf16 widened).
  float Get(int core, uint64_t i) const;
  void Set(int core, uint64_t i, float v);  // bf16: rounded

 private:
  size_t Offset(int core) const { return size_t(core - core_begin_) * elements_ * BytesPerElement(dtype_); }
  DType dtype_;
  uint64_t elements_;
  int core_begin_, core_end_;
  std::vector<uint8_t> data_;
};

// Applies one transfer to buffers that hold both cores (src and dst data
// pointers may come from different places, e.g. a received message).
void ApplyTransfer(DType dtype, TransferOp op, const uint8_t* src, uint8_t* dst, uint32_t count);

// Runs `schedule` on `buffers` with `threads` workers. 0 = automatic: up to
// hardware concurrency (at most 8), one worker per 32 Ki elements moved a
// step, so tiny steps skip the barrier. REQUIRES: buffers hold every core of
// the schedule.
Status RunFunctional(const Schedule& schedule, CoreBuffers& buffers, int threads = 0);

}  // namespace podbench::topology
