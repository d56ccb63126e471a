// A slice of the pod, named the MLPerf way by its core count: tpu-v3-N has
// N cores on N / cores_per_chip chips, laid out as the chip grid the system
// description lists for N (tpu-v3-2048 = 32 x 32 with wraparound).
//
// Wraparound: a dimension as long as the pod's has wraparound links when
// pod.wraparound is true; a shorter one when pod.subpod_wraparound is true
// (default false), unless the caller overrides it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "topology/system.h"
#include "topology/torus.h"

namespace podbench::topology {

class Slice {
 public:
  // `name` is "<system.name>-<cores>", e.g. "tpu-v3-2048". `subpod_wraparound`
  // overrides pod.subpod_wraparound when set. InvalidArgument for an unknown
  // name (the message lists the known slices).
  static Result<Slice> FromName(std::string_view name, const SystemSpec& system,
                                std::optional<bool> subpod_wraparound = std::nullopt);

  const std::string& name() const { return name_; }
  const SystemSpec& system() const { return *system_; }
  const Torus& torus() const { return torus_; }
  int num_cores() const { return torus_.num_cores(); }
  int num_chips() const { return torus_.num_chips(); }
  // One host per system.host.chips_per_host chips (at least one).
  int num_hosts() const;
  // Peak bf16 FLOP/s of the slice.
  double peak_flops() const { return num_chips() * system_->chip_peak_flops(); }

 private:
  Slice(std::string name, const SystemSpec* system, Torus torus)
      : name_(std::move(name)), system_(system), torus_(std::move(torus)) {}

  std::string name_;
  const SystemSpec* system_;  // not owned; REQUIRES: outlives the Slice
  Torus torus_;
};

}  // namespace podbench::topology
