#include "workloads/maskrcnn/maskrcnn_google_v06.h"

#include "workloads/registry.h"

namespace podbench::maskrcnn {

const std::vector<MaskRcnnGoogleV06Slice>& MaskRcnnGoogleV06Slices() {
  // clang-format off
  static const std::vector<MaskRcnnGoogleV06Slice> kSlices = {
      // slice       cores reps k  /rep rep/host evbs evsteps
      {"tpu-v3-32",   32,  32, 1, 4,   8,       256, 21},
      {"tpu-v3-128",  128, 32, 4, 4,   2,       128, 41},
      {"tpu-v3-256",  256, 64, 4, 2,   2,       256, 21},
  };
  // clang-format on
  return kSlices;
}

Result<projection::StepConfig> GoogleV06Preset(std::string_view preset, std::string_view slice,
                                               int64_t slice_cores) {
  if (preset != "google-v0.6") return workloads::PresetNotFound("maskrcnn", preset, {"google-v0.6"});
  PODBENCH_ASSIGN_OR_RETURN(const MaskRcnnGoogleV06Slice* row,
                            workloads::FindSliceRow("maskrcnn", preset, MaskRcnnGoogleV06Slices(), slice,
                                                    slice_cores));
  projection::StepConfig c;
  c.layout.replicas = row->replicas;
  c.layout.cores_per_replica = row->cores_per_replica;
  c.layout.split = row->cores_per_replica > 1 ? projection::SplitDim::kHeight : projection::SplitDim::kNone;
  c.layout.bn_group = 1;
  c.layout.gradient_dtype = projection::DType::kF32;
  c.optimizer = projection::OptimizerKind::kMomentum;
  c.per_replica_batch = row->per_replica_batch;
  c.eval_per_replica_batch = row->EvalPerReplicaBatch();
  return workloads::CheckedPreset("maskrcnn", preset, slice, slice_cores, c);
}

}  // namespace podbench::maskrcnn
