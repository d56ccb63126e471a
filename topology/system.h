// The system description: every number of a TPU-v3-like pod, read from YAML.
//
// topology/ owns the file (topology/systems/tpu-v3.yaml is the default and is
// compiled into the library); it fills kernels::CoreSpec for the cost
// functions and the chip, link, host and pod structs below. Users pass their
// own file (`--system FILE`) for what-if machines. Every field is required:
// a missing or malformed one is an error naming the file and the field.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "base/status.h"
#include "kernels/core_spec.h"

namespace podbench::topology {

// One kind of point-to-point link. Units: bytes/s and seconds.
struct LinkSpec {
  double bandwidth_bytes_per_s = 0;  // per direction
  double latency_s = 0;              // per hop (alpha)
  double beta() const { return 1.0 / bandwidth_bytes_per_s; }  // seconds per byte
};

struct ChipSpec {
  int cores = 0;               // TensorCores per chip
  double power_min_w = 0, power_mean_w = 0, power_max_w = 0;
  LinkSpec core_link;          // between two cores of one chip (calibration)
};

struct IciSpec {
  int links_per_chip = 0;      // one per torus direction
  LinkSpec link;               // chip-to-chip link, per direction
};

// A host's input pipeline and evaluation scoring, in units no model owns
// (bytes, operations): a workload states its work per example in them
// (workloads/projection/graph.h HostWork) and the projection layer combines
// the two.
struct HostSpec {
  int chips_per_host = 0;
  int vcpus = 0;
  double pcie_bandwidth_bytes_per_s_per_chip = 0;
  // Calibration: bytes of device-ready examples (after decode, augmentation
  // and the cast) a host's input pipeline delivers per second in steady state.
  double input_bytes_per_s = 0;
  // Calibration: the same while the pipeline fills a cache of decoded
  // examples (full decode plus cache insert; the first epoch of runs that
  // cache decoded examples).
  double cache_fill_bytes_per_s = 0;
  // Calibration: seconds from run_start to the first training step running
  // at speed (input pipeline and shuffle-buffer fill, infeed start), on a
  // slice of h hosts startup_s + startup_s_per_host x h.
  double startup_s = 0;
  double startup_s_per_host = 0;
  // Scalar operations per second one host process scoring an evaluation
  // runs (a documented estimate, not fitted).
  double scoring_ops_per_s = 0;
};

struct PodSpec {
  int chips_x = 0, chips_y = 0;   // the full pod
  bool wraparound = true;         // full-pod dimensions have wraparound links
  bool subpod_wraparound = false; // dimensions shorter than the pod's have them too
  std::map<int, std::pair<int, int>> slices;  // cores -> {chips_x, chips_y}
};

struct SystemSpec {
  std::string name;     // e.g. "tpu-v3"; slice names are "<name>-<cores>"
  std::string source;   // the file it came from, or "<builtin tpu-v3.yaml>"
  kernels::CoreSpec core;
  ChipSpec chip;
  IciSpec ici;
  HostSpec host;
  PodSpec pod;

  // Peak bf16 FLOP/s of one chip (cores x MXU peak).
  double chip_peak_flops() const { return chip.cores * core.mxu_peak_flops(); }
};

// Parses YAML text. `source` names the input in error messages
// ("FILE: field core.clock_hz: ..."). Checks ranges (positive sizes, slice
// grids inside the pod, cores = 2 x chips x ... ).
Result<SystemSpec> ParseSystemYaml(std::string_view text, std::string source);

// Reads and parses `path`. NotFound when it cannot be read.
Result<SystemSpec> LoadSystemFile(const std::filesystem::path& path);

// The built-in TPU-v3 description (topology/systems/tpu-v3.yaml, compiled in).
const SystemSpec& DefaultSystem();

// A system description with the YAML text it was parsed from.
struct LoadedSystem {
  std::shared_ptr<const SystemSpec> spec;  // never null
  std::string yaml;                        // the text `spec` was parsed from
  // For messages: the file's path, or "<builtin tpu-v3.yaml>".
  const std::string& source() const { return spec->source; }
  // What a run records to say which system priced it: "builtin" for the
  // built-in text (also when a file holds exactly that text), else
  // FingerprintOf(yaml) (base/hash.h). Equal fingerprints, equal figures.
  std::string Fingerprint() const;
};

// What a `--system FILE` option means. An empty `path` is the built-in
// description: `spec` points at DefaultSystem() (static, not owned) and
// `yaml` is DefaultSystemYaml(). Otherwise the file is read once and parsed,
// with LoadSystemFile's errors (NotFound when it cannot be read, else
// ParseSystemYaml's, naming the file).
Result<LoadedSystem> LoadSystemOrDefault(const std::filesystem::path& path);

// The built-in YAML text, e.g. to write a template for users to edit.
std::string_view DefaultSystemYaml();

}  // namespace podbench::topology
