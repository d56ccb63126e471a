#include "workloads/transformer/transformer_google_v06.h"

namespace podbench::transformer {

const std::vector<TransformerGoogleV06Slice>& TransformerGoogleV06Slices() {
  // clang-format off
  static const std::vector<TransformerGoogleV06Slice> kSlices = {
      // slice       cores tok/core seq/core global bf16  ipl   steps blk dec   decst lr   warm  b1    b2
      {"tpu-v3-32",   32,   4096, 16, 512,  true,  1087, 4348, 4, 512,  6, 2.0, 1000, 0.9,  0.98},
      {"tpu-v3-128",  128,  1024, 4,  512,  false, 1087, 4348, 4, 512,  6, 2.0, 1000, 0.9,  0.98},
      {"tpu-v3-256",  256,  512,  2,  512,  false, 1087, 4348, 4, 512,  6, 2.0, 1000, 0.9,  0.98},
      {"tpu-v3-512",  512,  1024, 4,  2048, false, 271,  1897, 7, 2048, 2, 1.3, 550,  0.86, 0.92},
      {"tpu-v3-1024", 1024, 512,  2,  2048, false, 271,  1897, 7, 2048, 2, 1.3, 550,  0.86, 0.92},
      {"tpu-v3-2048", 2048, 256,  1,  2048, false, 271,  1897, 7, 2048, 2, 1.3, 550,  0.86, 0.92},
  };
  // clang-format on
  return kSlices;
}

const TransformerGoogleV06Slice* TransformerGoogleV06SliceFor(std::string_view slice) {
  for (const TransformerGoogleV06Slice& r : TransformerGoogleV06Slices()) {
    if (r.slice == slice) return &r;
  }
  return nullptr;
}

const std::vector<TransformerConvergenceRow>& TransformerConvergenceTable() {
  // clang-format off
  static const std::vector<TransformerConvergenceRow> kTable = {
      // slice         global  {evals, blocks_started, runs}     score  gap    first+
      {"tpu-v3-32",    512,  {{3, 4, 8}, {4, 4, 2}}, 10.20, 193.6,  7.90},
      {"tpu-v3-128",   512,  {{3, 4, 6}, {4, 4, 4}},  3.85,  66.7,  3.25},
      {"tpu-v3-256",   512,  {{3, 4, 7}, {4, 4, 3}},  2.81,  50.4,  2.39},
      {"tpu-v3-512",   2048, {{5, 6, 7}, {6, 7, 3}},  1.58,  16.8,  2.62},
      {"tpu-v3-1024",  2048, {{5, 7, 8}, {6, 7, 2}},  1.05,  10.9,  3.24},
      {"tpu-v3-2048",  2048, {{5, 7, 9}, {6, 7, 1}},  0.85,   8.3,  5.11},
  };
  // clang-format on
  return kTable;
}

const TransformerConvergenceRow& TransformerConvergenceFor(std::string_view slice, int64_t global_sequences) {
  const auto& table = TransformerConvergenceTable();
  for (const auto& r : table) {
    if (r.slice == slice) return r;
  }
  const TransformerConvergenceRow* best = &table.front();
  for (const auto& r : table) {
    const int64_t d = r.global_sequences - global_sequences, bd = best->global_sequences - global_sequences;
    if ((d < 0 ? -d : d) < (bd < 0 ? -bd : bd)) best = &r;
  }
  return *best;
}

}  // namespace podbench::transformer
