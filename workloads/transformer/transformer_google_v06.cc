#include "workloads/transformer/transformer_google_v06.h"

#include "workloads/model_zoo.h"

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

Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores) {
  if (preset != "google-v0.6") return workloads::PresetNotFound("transformer", preset, {"google-v0.6"});
  PODBENCH_ASSIGN_OR_RETURN(const TransformerGoogleV06Slice* row,
                            workloads::FindSliceRow("transformer", preset, TransformerGoogleV06Slices(), slice,
                                                    slice_cores));
  projection::StepConfig c;
  c.layout.replicas = row->cores;
  c.layout.gradient_dtype = row->bf16_gradients ? projection::DType::kBf16 : projection::DType::kF32;
  c.optimizer = projection::OptimizerKind::kLazyAdam;
  c.per_replica_batch = row->sequences_per_core;
  c.eval_per_replica_batch = row->DecodePerCore();
  return workloads::CheckedPreset("transformer", preset, slice, slice_cores, c);
}

}  // namespace podbench::transformer
