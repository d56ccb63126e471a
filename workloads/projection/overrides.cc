#include "workloads/projection/overrides.h"

#include <charconv>
#include <functional>
#include <map>

#include "base/text.h"

namespace podbench::projection {

namespace {

struct Target {
  StepConfig* config;
  ProjectionOptions* options;
  int64_t slice_cores;
};

using Setter = std::function<Status(const Target&, std::string_view)>;

Status Bad(std::string_view value, const std::string& expected) {
  return Status::InvalidArgument("'" + std::string(value) + "' is not " + expected);
}

Result<bool> ParseBool(std::string_view v) {
  if (v == "true") return true;
  if (v == "false") return false;
  return Bad(v, "true or false");
}

Result<int64_t> ParsePositive(std::string_view v) {
  int64_t x = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc() || end != v.data() + v.size() || x < 1) return Bad(v, "a positive integer");
  return x;
}

// Examples a replica per step: bounded as run bounds a toy's global batch,
// far above any real one and far below where step arithmetic overflows.
constexpr int64_t kMaxReplicaBatch = int64_t{1} << 20;

Result<int64_t> ParseReplicaBatch(std::string_view v) {
  PODBENCH_ASSIGN_OR_RETURN(int64_t x, ParsePositive(v));
  if (x > kMaxReplicaBatch) return Bad(v, "a batch up to " + std::to_string(kMaxReplicaBatch) + " examples a replica");
  return x;
}

Setter BoolField(bool ProjectionOptions::*field) {
  return [field](const Target& t, std::string_view v) -> Status {
    PODBENCH_ASSIGN_OR_RETURN(bool b, ParseBool(v));
    t.options->*field = b;
    return Status::Ok();
  };
}

Setter OverlapField(bool Overlap::*field) {
  return [field](const Target& t, std::string_view v) -> Status {
    PODBENCH_ASSIGN_OR_RETURN(bool b, ParseBool(v));
    t.options->overlap.*field = b;
    return Status::Ok();
  };
}

// Keys in OverrideKeys' order with their setters.
const std::vector<std::pair<std::string, Setter>>& Setters() {
  static const std::vector<std::pair<std::string, Setter>> setters = {
      {"cores_per_replica",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(int64_t k, ParsePositive(v));
         if (t.slice_cores % k != 0) {
           return Status::InvalidArgument(std::to_string(k) + " cores per replica do not divide the slice's " +
                                          std::to_string(t.slice_cores) + " cores");
         }
         t.config->layout.cores_per_replica = k;
         t.config->layout.replicas = t.slice_cores / k;
         t.config->layout.split = k > 1 ? SplitDim::kHeight : SplitDim::kNone;
         return Status::Ok();
       }},
      {"weight_update_sharding",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(t.config->layout.weight_update_sharding, ParseBool(v));
         return Status::Ok();
       }},
      {"allreduce",
       [](const Target& t, std::string_view v) -> Status {
         if (v.empty()) return Bad(v, "an algorithm name");
         t.config->layout.allreduce = std::string(v);
         return Status::Ok();
       }},
      {"bn_group",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(t.config->layout.bn_group, ParsePositive(v));
         return Status::Ok();
       }},
      {"gradient_dtype",
       [](const Target& t, std::string_view v) -> Status {
         if (v == "bf16") {
           t.config->layout.gradient_dtype = DType::kBf16;
         } else if (v == "fp32") {
           t.config->layout.gradient_dtype = DType::kF32;
         } else {
           return Bad(v, "bf16 or fp32");
         }
         return Status::Ok();
       }},
      {"optimizer",
       [](const Target& t, std::string_view v) -> Status {
         for (OptimizerKind k : {OptimizerKind::kSgd, OptimizerKind::kMomentum, OptimizerKind::kLars,
                                 OptimizerKind::kAdam, OptimizerKind::kLazyAdam}) {
           if (v == OptimizerName(k)) {
             t.config->optimizer = k;
             return Status::Ok();
           }
         }
         return Bad(v, "sgd, momentum, lars, adam or lazy_adam");
       }},
      {"per_replica_batch",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(t.config->per_replica_batch, ParseReplicaBatch(v));
         return Status::Ok();
       }},
      {"eval_per_replica_batch",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(t.config->eval_per_replica_batch, ParseReplicaBatch(v));
         return Status::Ok();
       }},
      {"cache_decoded_examples",
       [](const Target& t, std::string_view v) -> Status {
         PODBENCH_ASSIGN_OR_RETURN(t.config->cache_decoded_examples, ParseBool(v));
         return Status::Ok();
       }},
      {"fuse_elementwise", BoolField(&ProjectionOptions::fuse_elementwise)},
      {"distributed_eval", BoolField(&ProjectionOptions::distributed_eval)},
      {"bn_algorithm",
       [](const Target& t, std::string_view v) -> Status {
         if (v.empty()) return Bad(v, "an algorithm name");
         t.options->bn_algorithm = std::string(v);
         return Status::Ok();
       }},
      {"overlap.units_within_op", OverlapField(&Overlap::units_within_op)},
      {"overlap.input_with_device", OverlapField(&Overlap::input_with_device)},
      {"overlap.gradients_with_backward", OverlapField(&Overlap::gradients_with_backward)},
      {"overlap.halo_with_compute", OverlapField(&Overlap::halo_with_compute)},
      {"overlap.bn_sync_with_compute", OverlapField(&Overlap::bn_sync_with_compute)},
      {"overlap.eval_scoring_with_training", OverlapField(&Overlap::eval_scoring_with_training)},
      {"overlap.eval_input_with_training", OverlapField(&Overlap::eval_input_with_training)},
  };
  return setters;
}

}  // namespace

const std::vector<std::string>& OverrideKeys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& [name, setter] : Setters()) k.push_back(name);
    return k;
  }();
  return keys;
}

Status ApplyOverride(std::string_view item, int64_t slice_cores, StepConfig* config, ProjectionOptions* options) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument("--set " + std::string(item) + ": expected key=value");
  }
  const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
  for (const auto& [name, setter] : Setters()) {
    if (name != key) continue;
    StepConfig c = *config;
    ProjectionOptions o = *options;
    Status st = setter(Target{&c, &o, slice_cores}, value);
    if (!st.ok()) return Status::InvalidArgument("--set " + std::string(item) + ": " + st.message());
    *config = c;
    *options = o;
    return Status::Ok();
  }
  return Status::InvalidArgument("--set " + std::string(item) + ": unknown key '" + std::string(key) +
                                 "' (known: " + JoinNames(OverrideKeys()) + ")");
}

}  // namespace podbench::projection
