// `podbench run` settings: the request as the user typed it, and the
// effective settings it normalises to, once, before anything runs (loadgen's
// TestSettings -> TestSettingsInternal). Both are recorded with every run.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "rules/mllog/record.h"
#include "topology/system.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::harness {

struct RunRequest {
  std::string workload;
  std::string slice = "tpu-v3-8";
  std::string mode = "functional";
  std::optional<int> runs;           // absent = what a scored result needs (1 to 1000)
  std::optional<uint64_t> seed;      // absent = drawn from the OS, and recorded
  std::string preset;
  std::vector<std::string> sets;     // --set key=value
  std::string log;                   // MLPerf log path; empty = none written
  std::string log_format = "mll";    // "mll" (v0.6 :::MLL) or "mllog" (v0.7+ :::MLLOG)
  std::string db = "podbench.db";
  std::string system;                // --system FILE; empty = the built-in TPU-v3
  std::string label;
};

// The slice `name` of `system` (topology/slice.h): "tpu-v3-N", N cores on
// N / cores-per-chip chips. InvalidArgument naming the flag otherwise.
Result<workloads::SliceInfo> ParseSlice(const std::string& name, const topology::SystemSpec& system);

struct EffectiveRunSettings {
  RunRequest request;
  const workloads::ModelRegistration* registration = nullptr;
  std::shared_ptr<const workloads::Workload> workload;
  workloads::SliceInfo slice;
  std::shared_ptr<const topology::SystemSpec> system;
  std::string system_fingerprint;  // topology::LoadedSystem::Fingerprint(): "builtin" or the file's
  workloads::Mode mode = workloads::Mode::kFunctional;
  workloads::Hyperparameters hp;
  workloads::WorkloadDescription description;
  int runs = 0;
  uint64_t base_seed = 0;  // run i uses base_seed + i
  mllog::Format log_format = mllog::Format::kMll;
  // The processes a functional run is spread over (`mpirun`, set by `podbench
  // run` after Normalize); null = one process. See workloads::RunContext.
  std::shared_ptr<topology::RankGroup> ranks;

  // Log path of run `index` (0-based): the --log path itself for a single
  // run, else "<stem>_<index><ext>" beside it; empty when no --log.
  std::string LogPath(int index) const;
  // The request (flags, with `system_fingerprint`) and the hyperparameters,
  // as JSON objects. results/run_variant.h reads the flags back.
  std::string FlagsJson() const;
  std::string HyperparametersJson() const;
};

// Checks and resolves everything: every string is UTF-8, workload, mode,
// slice, preset, --set values against the closed-division constraints,
// cross-field constraints, and that a functional run's estimated memory
// (WorkloadDescription::host_memory_bytes) fits MachineMemoryBytes().
// InvalidArgument with a message naming the flag or hyperparameter.
Result<EffectiveRunSettings> Normalize(const RunRequest& request);

// This machine's physical memory in bytes (0 when unknown).
int64_t MachineMemoryBytes();

}  // namespace podbench::harness
