#include "workloads/gnmt/gnmt_google_v06.h"

namespace podbench::gnmt {

const std::vector<GnmtGoogleV06Slice>& GnmtGoogleV06Slices() {
  // clang-format off
  static const std::vector<GnmtGoogleV06Slice> kSlices = {
      // slice       cores batch /core spe ep  lr      warm start intv infer evst workers
      {"tpu-v3-32",   32,  4096, 128, 840, 8,  0.0035, 150, 4000, 300, 512,  6, 1},
      {"tpu-v3-128",  128, 8192, 64,  420, 10, 0.0045, 200, 1924, 241, 4096, 1, 2},
      {"tpu-v3-256",  256, 8192, 32,  420, 10, 0.0045, 200, 1924, 241, 4096, 1, 2},
      {"tpu-v3-512",  512, 8192, 16,  420, 10, 0.0045, 200, 1924, 241, 4096, 1, 2},
      {"tpu-v3-1024", 1024, 8192, 8,  420, 10, 0.0045, 200, 1924, 241, 4096, 1, 2},
  };
  // clang-format on
  return kSlices;
}

}  // namespace podbench::gnmt
