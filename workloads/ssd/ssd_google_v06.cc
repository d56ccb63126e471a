#include "workloads/ssd/ssd_google_v06.h"

#include "workloads/model_zoo.h"

namespace podbench::ssd {

const std::vector<SsdGoogleV06Slice>& SsdGoogleV06Slices() {
  // clang-format off
  static const std::vector<SsdGoogleV06Slice> kSlices = {
      // slice       cores reps k  batch /rep  ipl  ep  blk evbs  evst bn  tile   slice    s2d    warm lr      drops
      {"tpu-v3-32",   32,   32, 1, 1024, 32, 625, 64, 12, 1024, 5,  2, 0, 0, 0,  0,  false, 5,   3e-3,   42.6, 53.3},
      {"tpu-v3-128",  128, 128, 1, 1024, 8,  625, 64, 12, 1024, 5,  8, 2, 2, 8,  8,  true,  5,   3e-3,   42.6, 53.3},
      {"tpu-v3-256",  256, 256, 1, 1024, 4,  625, 64, 12, 1024, 5, 16, 2, 4, 16, 8,  true,  5,   3e-3,   42.6, 53.3},
      {"tpu-v3-512",  512, 512, 1, 2048, 4,  313, 80, 15, 2048, 3, 16, 2, 4, 16, 16, true,  20,  2.5e-3, 56.0, 70.0},
      {"tpu-v3-1024", 1024, 256, 4, 2048, 8, 313, 80, 15, 2048, 3,  8, 2, 4, 16, 16, true,  20,  2.5e-3, 56.0, 70.0},
      {"tpu-v3-2048", 2048, 512, 4, 2048, 4, 313, 80, 15, 2048, 3, 16, 2, 8, 16, 32, true,  20,  2.5e-3, 56.0, 70.0},
  };
  // clang-format on
  return kSlices;
}

Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores) {
  if (preset != "google-v0.6") return workloads::PresetNotFound("ssd", preset, {"google-v0.6"});
  PODBENCH_ASSIGN_OR_RETURN(const SsdGoogleV06Slice* row,
                            workloads::FindSliceRow("ssd", preset, SsdGoogleV06Slices(), slice, slice_cores));
  projection::StepConfig c;
  c.layout.replicas = row->replicas;
  c.layout.cores_per_replica = row->cores_per_replica;
  c.layout.split = row->cores_per_replica > 1 ? projection::SplitDim::kHeight : projection::SplitDim::kNone;
  c.layout.bn_group = row->bn_group;
  c.layout.gradient_dtype = projection::DType::kF32;
  c.optimizer = projection::OptimizerKind::kMomentum;
  c.per_replica_batch = row->per_replica_batch;
  c.eval_per_replica_batch = row->EvalPerReplicaBatch();
  return workloads::CheckedPreset("ssd", preset, slice, slice_cores, c);
}

}  // namespace podbench::ssd
