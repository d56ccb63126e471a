#include "topology/slice.h"

#include <charconv>

namespace podbench::topology {

Result<Slice> Slice::FromName(std::string_view name, const SystemSpec& system,
                              std::optional<bool> subpod_wraparound) {
  const std::string prefix = system.name + "-";
  auto known = [&] {
    std::string list;
    for (const auto& [cores, grid] : system.pod.slices) {
      list += (list.empty() ? "" : ", ") + prefix + std::to_string(cores);
    }
    return list;
  };
  int cores = 0;
  const bool has_prefix = name.substr(0, prefix.size()) == prefix;
  std::string_view digits = has_prefix ? name.substr(prefix.size()) : std::string_view();
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cores);
  auto it = system.pod.slices.end();
  if (has_prefix && ec == std::errc() && ptr == digits.data() + digits.size()) {
    it = system.pod.slices.find(cores);
  }
  if (it == system.pod.slices.end()) {
    return Status::InvalidArgument("unknown slice '" + std::string(name) + "' for system " +
                                   system.name + " (" + system.source + "); known: " + known());
  }
  const auto [cx, cy] = it->second;
  const bool sub = subpod_wraparound.value_or(system.pod.subpod_wraparound);
  const bool wrap_x = cx == system.pod.chips_x ? system.pod.wraparound : sub;
  const bool wrap_y = cy == system.pod.chips_y ? system.pod.wraparound : sub;
  return Slice(std::string(name), &system,
               Torus(cx, cy, wrap_x, wrap_y, system.chip.cores, system.ici.link,
                     system.chip.core_link));
}

int Slice::num_hosts() const {
  const int per = system_->host.chips_per_host;
  return (num_chips() + per - 1) / per;
}

}  // namespace podbench::topology
