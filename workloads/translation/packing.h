// Packing translation examples into fixed-length rows, as tensor2tensor's
// pack_examples (generator_utils.py) packed WMT for Google's v0.6
// Transformer (translate_ende_wmt32k_packed, packed_length 256): several
// (source, target) pairs share a row; each row keeps a queue-ordered list of
// open rows (at most `queue_size`), an example goes into the first open row
// where both its source and its target still fit (with `spacing` padding
// positions after the previous example), else into a new row; when the
// queue is full the oldest row is closed. Per position the row carries the
// token, the segment (1, 2, ... per example; 0 for padding and spacing) and
// the position within its example (0-based; 0 for padding), so attention
// can be kept inside each example and positional encodings restart.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"

namespace podbench::translation {

// One example's token ids, end-of-sentence included.
struct TokenPair {
  std::vector<int32_t> source, target;
};

// rows x length arrays, row-major.
struct PackedRows {
  int64_t rows = 0, length = 0;
  std::vector<int32_t> inputs, inputs_segmentation, inputs_position;
  std::vector<int32_t> targets, targets_segmentation, targets_position;
  int64_t examples = 0;  // examples in these rows

  // Copies rows `order[first .. first + count)` (indices into this) to `out`.
  void Gather(const std::vector<int64_t>& order, int64_t first, int64_t count, PackedRows* out) const;
  // For a batch dealt to the cores in consecutive blocks of `per_core` rows
  // (core c: rows [c per_core, (c + 1) per_core)): the shares of cores
  // [begin, end), out[k] core begin + k's. REQUIRES: end * per_core <= rows.
  void SharesOfCores(int begin, int end, int64_t per_core, std::vector<PackedRows>* out) const;
};

// InvalidArgument when an example's source or target is empty or longer
// than `length` (drop long examples first), or length < 1, spacing < 0,
// queue_size < 1.
Result<PackedRows> PackExamples(const std::vector<TokenPair>& examples, int64_t length, int spacing = 2,
                                int queue_size = 10);

}  // namespace podbench::translation
