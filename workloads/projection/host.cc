#include "workloads/projection/host.h"

#include <algorithm>

namespace podbench::projection {

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

int64_t ExamplesPerHost(int64_t examples, const topology::Slice& slice) {
  return CeilDiv(examples, slice.num_hosts());
}

double HostInputSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  // Examples the busiest host and the busiest chip's PCIe take per step: a
  // shard each, or, from a few infeed hosts taking turns, the whole batch
  // every infeed_hosts steps.
  const bool few = work.infeed_hosts > 0 && work.infeed_hosts < slice.num_hosts();
  const double per_host = few ? static_cast<double>(global_examples) / work.infeed_hosts
                              : static_cast<double>(ExamplesPerHost(global_examples, slice));
  const double per_chip = few ? per_host : static_cast<double>(CeilDiv(global_examples, slice.num_chips()));
  const double pipeline = per_host * work.infeed_bytes / host.input_bytes_per_s;
  const double pcie = per_chip * work.infeed_bytes / host.pcie_bandwidth_bytes_per_s_per_chip;
  return std::max(pipeline, pcie);
}

double FirstEpochExtraS(const HostWork& work, const StepConfig& config, double step_s, int64_t steps,
                        int64_t train_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  double extra = host.startup_s + host.startup_s_per_host * static_cast<double>(slice.num_hosts());
  if (config.cache_decoded_examples) {
    const double fill_s = static_cast<double>(ExamplesPerHost(train_examples, slice)) * DecodeBytes(work) /
                          host.cache_fill_bytes_per_s;
    extra += std::max(0.0, fill_s - static_cast<double>(steps) * step_s);
  }
  return extra;
}

double DecodeBytes(const HostWork& work) { return work.decode_bytes > 0 ? work.decode_bytes : work.infeed_bytes; }

double OutfeedSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice) {
  return static_cast<double>(CeilDiv(global_examples, slice.num_chips())) * work.outfeed_bytes /
         slice.system().host.pcie_bandwidth_bytes_per_s_per_chip;
}

double HostScoringSeconds(const HostWork& work, int64_t eval_examples, const topology::Slice& slice) {
  const topology::HostSpec& host = slice.system().host;
  const int processes = std::clamp(work.scoring_processes, 1, std::max(1, host.vcpus));
  return static_cast<double>(eval_examples) * work.score_ops / (host.scoring_ops_per_s * processes);
}

}  // namespace podbench::projection
