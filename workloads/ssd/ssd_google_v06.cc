#include "workloads/ssd/ssd_google_v06.h"

namespace podbench::ssd {

const std::vector<SsdGoogleV06Slice>& SsdGoogleV06Slices() {
  // clang-format off
  static const std::vector<SsdGoogleV06Slice> kSlices = {
      // slice       cores reps k  batch /rep  ipl  ep  blk evbs  evst bn  tile   slice    s2d    warm lr      drops       first+
      {"tpu-v3-32",   32,   32, 1, 1024, 32, 625, 64, 12, 1024, 5,  2, 0, 0, 0,  0,  false, 5,   3e-3,   42.6, 53.3, 4.66},
      {"tpu-v3-128",  128, 128, 1, 1024, 8,  625, 64, 12, 1024, 5,  8, 2, 2, 8,  8,  true,  5,   3e-3,   42.6, 53.3, 2.35},
      {"tpu-v3-256",  256, 256, 1, 1024, 4,  625, 64, 12, 1024, 5, 16, 2, 4, 16, 8,  true,  5,   3e-3,   42.6, 53.3, 1.73},
      {"tpu-v3-512",  512, 512, 1, 2048, 4,  313, 80, 15, 2048, 3, 16, 2, 4, 16, 16, true,  20,  2.5e-3, 56.0, 70.0, 2.24},
      {"tpu-v3-1024", 1024, 256, 4, 2048, 8, 313, 80, 15, 2048, 3,  8, 2, 4, 16, 16, true,  20,  2.5e-3, 56.0, 70.0, 5.07},
      {"tpu-v3-2048", 2048, 512, 4, 2048, 4, 313, 80, 15, 2048, 3, 16, 2, 8, 16, 32, true,  20,  2.5e-3, 56.0, 70.0, 8.11},
  };
  // clang-format on
  return kSlices;
}

const SsdGoogleV06Slice* FindSsdGoogleV06Slice(std::string_view slice) {
  for (const SsdGoogleV06Slice& r : SsdGoogleV06Slices()) {
    if (r.slice == slice) return &r;
  }
  return nullptr;
}

const std::vector<SsdEvalPoint>& SsdEvalSchedule(int64_t global_batch) {
  static const std::vector<SsdEvalPoint> k1024 = {{33, 6}, {43, 8}, {49, 9}, {54, 10}, {59, 11}, {65, 12}};
  static const std::vector<SsdEvalPoint> k2048 = {{33, 6},  {44, 8},  {49, 9},  {54, 10}, {60, 11},
                                                  {65, 12}, {71, 13}, {76, 14}, {81, 15}};
  static const std::vector<SsdEvalPoint> kNone;
  return global_batch == 1024 ? k1024 : global_batch == 2048 ? k2048 : kNone;
}

int64_t SsdStepsPerBlock(int64_t global_batch) {
  return global_batch == 1024 ? 625 : global_batch == 2048 ? 313 : 0;
}

const std::vector<SsdConvergence>& SsdConvergenceTable() {
  static const std::vector<SsdConvergence> kTable = {
      {"tpu-v3-32", 1024, {59, 59, 59, 59, 59}},   {"tpu-v3-128", 1024, {59, 59, 59, 59, 59}},
      {"tpu-v3-256", 1024, {59, 59, 59, 59, 59}},  {"tpu-v3-512", 2048, {76, 76, 76, 76, 76}},
      {"tpu-v3-1024", 2048, {76, 76, 76, 76, 76}}, {"tpu-v3-2048", 2048, {76, 76, 76, 76, 76}},
  };
  return kTable;
}

const SsdConvergence* SsdConvergenceFor(std::string_view slice, int64_t global_batch) {
  const SsdConvergence* same_batch = nullptr;
  for (const SsdConvergence& c : SsdConvergenceTable()) {
    if (c.slice == slice && c.global_batch == global_batch) return &c;
    if (same_batch == nullptr && c.global_batch == global_batch) same_batch = &c;
  }
  return same_batch;
}

}  // namespace podbench::ssd
