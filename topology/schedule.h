// A collective as data: what the algorithms build and what the event
// simulation, the threaded executor and the MPI executor all run.
//
// A Schedule is a sequence of stages separated by barriers. A stage holds
// independent streams (pipeline chunks, the two directions of a
// bidirectional ring); streams of one stage touch disjoint elements. A stream
// is a sequence of steps; a step is a set of transfers. Ordering contract:
// a transfer of step s of a stream may start once its source core has
// received every transfer of that stream's steps < s addressed to it (the
// event simulation uses exactly this, not a global step barrier). Transfers
// of one step never write an element another transfer of the same step reads
// or writes (ValidateSchedule checks it), which makes every executor
// deterministic. Offsets and counts are in elements of the payload type.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::topology {

enum class TransferOp : uint8_t {
  kCopy,    // dst[i] = src[i]
  kReduce,  // dst[i] = dst[i] + src[i]
};

struct Transfer {
  int32_t src = 0, dst = 0;          // cores
  uint32_t src_off = 0, dst_off = 0; // elements
  uint32_t count = 0;                // elements
  TransferOp op = TransferOp::kCopy;
};

struct Stream {
  // Step s is transfers[step_begin[s] .. step_begin[s + 1]).
  std::vector<uint32_t> step_begin{0};
  std::vector<Transfer> transfers;

  int num_steps() const { return static_cast<int>(step_begin.size()) - 1; }
  void Add(const Transfer& t) { transfers.push_back(t); }
  // Closes the current step (an empty step is dropped).
  void EndStep() {
    if (transfers.size() != step_begin.back()) step_begin.push_back(static_cast<uint32_t>(transfers.size()));
  }
};

struct Stage {
  std::vector<Stream> streams;
};

// A half-open range of elements.
struct ElementRange {
  uint64_t begin = 0, end = 0;
};

struct Schedule {
  uint64_t elements = 0;        // per-core buffer length
  int num_cores = 0;
  std::vector<Stage> stages;
  // Reduce-scatter: the range each core holds reduced afterwards.
  // All-gather: the range each core contributes. Empty for other kinds.
  std::vector<ElementRange> owned;

  uint64_t NumTransfers() const;
};

// Checks the contracts above: cores and ranges in bounds, and no write in a
// step overlapping another access of the same step on the same core.
Status ValidateSchedule(const Schedule& schedule);

// Splits [begin, end) into `parts` nearly equal ranges; part i.
inline ElementRange Part(ElementRange r, uint64_t parts, uint64_t i) {
  const uint64_t n = r.end - r.begin;
  return {r.begin + n * i / parts, r.begin + n * (i + 1) / parts};
}

}  // namespace podbench::topology
