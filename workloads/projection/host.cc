#include "workloads/projection/host.h"

#include <algorithm>

namespace podbench::projection {

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

int64_t ExamplesPerHost(int64_t examples, const topology::Slice& slice) {
  return CeilDiv(examples, slice.num_hosts());
}

namespace {
// A few infeed hosts take turns feeding the whole batch.
bool FewInfeedHosts(const HostWork& work, const topology::Slice& slice) {
  return work.infeed_hosts > 0 && work.infeed_hosts < slice.num_hosts();
}
}  // namespace

double HostInputBytesPerStep(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  const double per_host = FewInfeedHosts(work, slice) ? static_cast<double>(global_examples) / work.infeed_hosts
                                                      : static_cast<double>(ExamplesPerHost(global_examples, slice));
  return per_host * work.infeed_bytes;
}

double HostInputSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  // The busiest chip's PCIe takes its shard, or, from a few infeed hosts, the
  // host's whole share.
  const double host_bytes = HostInputBytesPerStep(work, global_examples, slice);
  const double chip_bytes = FewInfeedHosts(work, slice)
                                ? host_bytes
                                : static_cast<double>(CeilDiv(global_examples, slice.num_chips())) * work.infeed_bytes;
  return std::max(host_bytes / host.input_bytes_per_s, chip_bytes / host.pcie_bandwidth_bytes_per_s_per_chip);
}

double InfeedDistributionBytes(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  return FewInfeedHosts(work, slice) ? static_cast<double>(global_examples) * work.infeed_bytes : 0;
}

double FirstEpochExtraS(const HostWork& work, const StepConfig& config, double step_s, int64_t steps,
                        int64_t train_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  double extra = host.startup_s + host.startup_s_per_host * static_cast<double>(slice.num_hosts());
  if (config.cache_decoded_examples) {
    const double fill_s = FirstEpochFillBytes(work, train_examples, slice) / host.cache_fill_bytes_per_s;
    extra += std::max(0.0, fill_s - static_cast<double>(steps) * step_s);
  }
  return extra;
}

double FirstEpochFillBytes(const HostWork& work, int64_t train_examples, const topology::Slice& slice) {
  const double per_example = work.decode_bytes > 0 ? work.decode_bytes : work.infeed_bytes;
  return static_cast<double>(ExamplesPerHost(train_examples, slice)) * per_example;
}

double OutfeedSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  return static_cast<double>(CeilDiv(global_examples, slice.num_chips())) * work.outfeed_bytes /
         slice.system().host.pcie_bandwidth_bytes_per_s_per_chip;
}

double HostScoringSeconds(const HostWork& work, int64_t eval_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  const int processes = std::clamp(work.scoring_processes, 1, std::max(1, host.vcpus));
  return static_cast<double>(eval_examples) *
         (work.score_ops / processes + work.serial_score_ops) / host.scoring_ops_per_s;
}

}  // namespace podbench::projection
