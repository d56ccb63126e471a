#include "workloads/gnmt/gnmt_google_v06.h"

#include "workloads/registry.h"

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

Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores) {
  if (preset != "google-v0.6") return workloads::PresetNotFound("gnmt", preset, {"google-v0.6"});
  PODBENCH_ASSIGN_OR_RETURN(const GnmtGoogleV06Slice* row,
                            workloads::FindSliceRow("gnmt", preset, GnmtGoogleV06Slices(), slice, slice_cores));
  projection::StepConfig c;
  c.layout.replicas = row->cores;
  c.layout.gradient_dtype = projection::DType::kF32;
  c.optimizer = projection::OptimizerKind::kAdam;
  c.per_replica_batch = row->per_core_batch;
  c.eval_per_replica_batch = row->InferPerCore();
  return workloads::CheckedPreset("gnmt", preset, slice, slice_cores, c);
}

}  // namespace podbench::gnmt
