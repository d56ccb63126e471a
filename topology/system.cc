#include "topology/system.h"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <yaml-cpp/yaml.h>

#include "base/hash.h"

namespace podbench::topology {

// Defined in the generated builtin_system.cc (see CMakeLists.txt).
extern const char kBuiltinTpuV3Yaml[];

namespace {

// Reads fields of one YAML document and remembers the first error, so the
// parser reads like a list of fields. Errors name the file, the line and the
// dotted field path.
class FieldReader {
 public:
  explicit FieldReader(std::string source) : source_(std::move(source)) {}

  const Status& status() const { return status_; }

  // Returns the child `key` of `node` (path `path`), or an invalid node after
  // recording "missing field".
  YAML::Node Child(const YAML::Node& node, const std::string& path, const std::string& key) {
    if (!status_.ok()) return YAML::Node();
    const std::string full = path.empty() ? key : path + "." + key;
    if (!node.IsMap()) {
      Fail(node, path, "expected a mapping");
      return YAML::Node();
    }
    YAML::Node child = node[key];
    if (!child) {
      Fail(node, full, "missing field");
      return YAML::Node();
    }
    read_.insert(full);
    return child;
  }

  // After every field is read: a key given twice in one mapping (YAML keeps
  // one of the two values silently) or a key no field reads (a misspelling
  // would otherwise leave the built-in value's field missing or be ignored)
  // is an error naming it and its line. Mappings at the paths in
  // `free_form` (keys that are data, as pod.slices' core counts) are checked
  // for repeats only.
  void CheckKeys(const YAML::Node& node, const std::string& path, const std::set<std::string>& free_form) {
    if (!status_.ok() || !node.IsMap()) return;
    std::map<std::string, int> lines;
    for (const auto& kv : node) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string("<collection>");
      const std::string full = path.empty() ? key : path + "." + key;
      const int line = kv.first.Mark().line + 1;
      if (auto [it, fresh] = lines.emplace(key, line); !fresh) {
        Fail(kv.first, full, "given twice (lines " + std::to_string(it->second) + " and " + std::to_string(line) + ")");
        return;
      }
      if (free_form.count(path) == 0 && read_.count(full) == 0) {
        Fail(kv.first, full, "unknown field (a misspelling?)");
        return;
      }
      CheckKeys(kv.second, full, free_form);
    }
  }

  // What a numeric field may hold. Every bound keeps the arithmetic on it
  // defined: numbers are finite, integers small enough that products of a
  // few of them (cores x chips x ...) stay far inside int.
  enum Range { kPositive, kNonNegative, kFraction /* (0, 1] */ };
  static constexpr double kMaxInteger = 1 << 15;

  template <typename T>
  void Get(const YAML::Node& node, const std::string& path, const std::string& key, T* out,
           bool positive = true) {
    Get(node, path, key, out, positive ? kPositive : kNonNegative);
  }

  template <typename T>
  void Get(const YAML::Node& node, const std::string& path, const std::string& key, T* out, Range range) {
    YAML::Node child = Child(node, path, key);
    if (!status_.ok()) return;
    const std::string full = path.empty() ? key : path + "." + key;
    try {
      if (!child.IsScalar()) throw YAML::Exception(child.Mark(), "not a scalar");
      *out = child.as<T>();
    } catch (const YAML::Exception&) {
      Fail(child, full, std::string("expected ") + TypeName<T>() + ", got '" +
                            (child.IsScalar() ? child.Scalar() : std::string("a collection")) + "'");
      return;
    }
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const double v = static_cast<double>(*out);
      if (!std::isfinite(v)) Fail(child, full, "must be a finite number");
      if (range == kPositive && !(v > 0)) Fail(child, full, "must be > 0");
      if (range == kNonNegative && !(v >= 0)) Fail(child, full, "must be >= 0");
      if (range == kFraction && !(v > 0 && v <= 1)) {
        Fail(child, full, "is a fraction and must lie in (0, 1], got " + child.Scalar());
      }
      if (std::is_integral_v<T> && v > kMaxInteger) {
        Fail(child, full, "must be <= " + std::to_string(static_cast<int64_t>(kMaxInteger)));
      }
    }
  }

  void Fail(const YAML::Node& node, const std::string& field, const std::string& what) {
    if (!status_.ok()) return;
    std::string where = source_;
    if (node.IsDefined() && node.Mark().line >= 0) where += ":" + std::to_string(node.Mark().line + 1);
    status_ = Status::InvalidArgument(where + ": field " + field + ": " + what);
  }

 private:
  template <typename T>
  static const char* TypeName() {
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    if constexpr (std::is_integral_v<T>) return "an integer";
    if constexpr (std::is_floating_point_v<T>) return "a number";
    return "a string";
  }

  std::string source_;
  Status status_;
  std::set<std::string> read_;  // the dotted paths of the fields read
};

void ReadLink(FieldReader& r, const YAML::Node& node, const std::string& path, LinkSpec* link,
              const char* bw_key, const char* lat_key) {
  r.Get(node, path, bw_key, &link->bandwidth_bytes_per_s);
  r.Get(node, path, lat_key, &link->latency_s, /*positive=*/false);
}

}  // namespace

Result<SystemSpec> ParseSystemYaml(std::string_view text, std::string source) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    return Status::InvalidArgument(source + ":" + std::to_string(e.mark.line + 1) +
                                   ": not valid YAML: " + e.msg);
  }
  SystemSpec s;
  s.source = source;
  FieldReader r(source);
  if (!root.IsMap()) return Status::InvalidArgument(source + ": expected a YAML mapping at the top");
  r.Get(root, "", "name", &s.name);

  YAML::Node core = r.Child(root, "", "core");
  kernels::CoreSpec& c = s.core;
  r.Get(core, "core", "mxus", &c.mxus_per_core);
  r.Get(core, "core", "mxu_dim", &c.mxu_dim);
  r.Get(core, "core", "clock_hz", &c.clock_hz);
  r.Get(core, "core", "vector_lanes", &c.vector_lanes);
  r.Get(core, "core", "vector_sublanes", &c.vector_sublanes);
  r.Get(core, "core", "hbm_bytes", &c.hbm_bytes);
  r.Get(core, "core", "hbm_bandwidth_bytes_per_s", &c.hbm_bandwidth);
  r.Get(core, "core", "vmem_bytes", &c.vmem_bytes);
  r.Get(core, "core", "mxu_efficiency", &c.mxu_efficiency, FieldReader::kFraction);
  r.Get(core, "core", "hbm_efficiency", &c.hbm_efficiency, FieldReader::kFraction);
  r.Get(core, "core", "op_overhead_s", &c.op_overhead_s, /*positive=*/false);

  YAML::Node chip = r.Child(root, "", "chip");
  r.Get(chip, "chip", "cores", &s.chip.cores);
  YAML::Node power = r.Child(chip, "chip", "power_w");
  r.Get(power, "chip.power_w", "min", &s.chip.power_min_w);
  r.Get(power, "chip.power_w", "mean", &s.chip.power_mean_w);
  r.Get(power, "chip.power_w", "max", &s.chip.power_max_w);
  YAML::Node core_link = r.Child(chip, "chip", "core_link");
  ReadLink(r, core_link, "chip.core_link", &s.chip.core_link, "bandwidth_bytes_per_s", "latency_s");

  YAML::Node ici = r.Child(root, "", "ici");
  r.Get(ici, "ici", "links_per_chip", &s.ici.links_per_chip);
  ReadLink(r, ici, "ici", &s.ici.link, "link_bandwidth_bytes_per_s", "hop_latency_s");

  YAML::Node host = r.Child(root, "", "host");
  r.Get(host, "host", "chips_per_host", &s.host.chips_per_host);
  r.Get(host, "host", "vcpus", &s.host.vcpus);
  r.Get(host, "host", "pcie_bandwidth_bytes_per_s_per_chip", &s.host.pcie_bandwidth_bytes_per_s_per_chip);
  r.Get(host, "host", "input_bytes_per_s", &s.host.input_bytes_per_s);
  r.Get(host, "host", "cache_fill_bytes_per_s", &s.host.cache_fill_bytes_per_s);
  r.Get(host, "host", "startup_s", &s.host.startup_s, /*positive=*/false);
  r.Get(host, "host", "startup_s_per_host", &s.host.startup_s_per_host, /*positive=*/false);
  r.Get(host, "host", "scoring_ops_per_s", &s.host.scoring_ops_per_s);

  YAML::Node pod = r.Child(root, "", "pod");
  r.Get(pod, "pod", "chips_x", &s.pod.chips_x);
  r.Get(pod, "pod", "chips_y", &s.pod.chips_y);
  r.Get(pod, "pod", "wraparound", &s.pod.wraparound);
  r.Get(pod, "pod", "subpod_wraparound", &s.pod.subpod_wraparound);
  YAML::Node slices = r.Child(pod, "pod", "slices");
  PODBENCH_RETURN_IF_ERROR(r.status());

  if (s.ici.links_per_chip != 4) {
    r.Fail(ici["links_per_chip"], "ici.links_per_chip", "a 2-D torus needs 4 links per chip");
  }
  if (!slices.IsMap() || slices.size() == 0) {
    r.Fail(slices, "pod.slices", "expected a non-empty mapping cores -> [chips_x, chips_y]");
  }
  PODBENCH_RETURN_IF_ERROR(r.status());
  for (const auto& kv : slices) {
    const std::string key = kv.first.Scalar();
    const std::string field = "pod.slices." + key;
    int cores = 0;
    std::pair<int, int> grid;
    try {
      cores = kv.first.as<int>();
      if (!kv.second.IsSequence() || kv.second.size() != 2) throw YAML::Exception(kv.second.Mark(), "");
      grid = {kv.second[0].as<int>(), kv.second[1].as<int>()};
    } catch (const YAML::Exception&) {
      r.Fail(kv.second, field, "expected <cores>: [chips_x, chips_y] with integers");
      break;
    }
    if (grid.first <= 0 || grid.second <= 0 || grid.first > s.pod.chips_x ||
        grid.second > s.pod.chips_y) {
      r.Fail(kv.second, field, "grid must lie inside the pod");
    } else if (const int64_t want = int64_t{grid.first} * grid.second * s.chip.cores; cores != want) {
      r.Fail(kv.second, field, "cores must equal chips_x * chips_y * chip.cores (" + std::to_string(want) + ")");
    }
    s.pod.slices[cores] = grid;
  }
  r.CheckKeys(root, "", {"pod.slices"});
  PODBENCH_RETURN_IF_ERROR(r.status());
  return s;
}

namespace {

Result<std::string> ReadSystemText(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound(path.string() + ": cannot read the system description file");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

}  // namespace

Result<SystemSpec> LoadSystemFile(const std::filesystem::path& path) {
  PODBENCH_ASSIGN_OR_RETURN(std::string text, ReadSystemText(path));
  return ParseSystemYaml(text, path.string());
}

Result<LoadedSystem> LoadSystemOrDefault(const std::filesystem::path& path) {
  LoadedSystem out;
  if (path.empty()) {
    // Aliasing constructor with no owner: the built-in spec is static.
    out.spec = std::shared_ptr<const SystemSpec>(std::shared_ptr<void>(), &DefaultSystem());
    out.yaml = DefaultSystemYaml();
    return out;
  }
  PODBENCH_ASSIGN_OR_RETURN(out.yaml, ReadSystemText(path));
  PODBENCH_ASSIGN_OR_RETURN(SystemSpec spec, ParseSystemYaml(out.yaml, path.string()));
  out.spec = std::make_shared<const SystemSpec>(std::move(spec));
  return out;
}

std::string_view DefaultSystemYaml() { return kBuiltinTpuV3Yaml; }

std::string LoadedSystem::Fingerprint() const {
  return yaml == DefaultSystemYaml() ? std::string("builtin") : FingerprintOf(yaml);
}

const SystemSpec& DefaultSystem() {
  static const SystemSpec spec = [] {
    Result<SystemSpec> r = ParseSystemYaml(kBuiltinTpuV3Yaml, "<builtin tpu-v3.yaml>");
    assert(r.ok() && "the built-in system description must parse");
    return std::move(r).value();
  }();
  return spec;
}

}  // namespace podbench::topology
