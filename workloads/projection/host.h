// The host side of a projected run: the input pipeline per training step,
// what a run's first epoch adds (start-up, filling a cache of decoded
// examples), the outfeed of evaluation results and their scoring on the host.
//
// Work per example is the model's (ModelGraph::host, in its own unit: an
// image of its size, a packed sequence); rates are global, in the system
// file (topology/systems/tpu-v3.yaml, host.*), measured in bytes and
// operations so that topology/ knows no model:
//   host.input_bytes_per_s        device-ready bytes a host's pipeline
//                                 delivers per second in steady state
//   host.cache_fill_bytes_per_s   stored (encoded) bytes a host decodes per
//                                 second while it fills a cache of decoded
//                                 examples (the first epoch of such runs)
//   host.startup_s                run_start to the first step at speed, and
//   host.startup_s_per_host       what it grows by per host of the slice
//   host.scoring_ops_per_s        scalar operations per second of one host
//                                 process scoring an evaluation
//   host.pcie_bandwidth_bytes_per_s_per_chip   infeed and outfeed
#pragma once

#include <cstdint>

#include "topology/slice.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/layout.h"

namespace podbench::projection {

// Examples of `examples` the busiest host handles: hosts read disjoint
// shards, ceil(examples / hosts). REQUIRES: examples >= 0.
int64_t ExamplesPerHost(int64_t examples, const topology::Slice& slice);

// Device-ready bytes the busiest host's pipeline delivers for a step of
// `global_examples` (infeed_bytes per example of its share). A host's share
// is its shard, or, when HostWork::infeed_hosts of the slice's hosts feed the
// whole batch in turn, global_examples / infeed_hosts on average.
double HostInputBytesPerStep(const HostWork& work, int64_t global_examples, const topology::Slice& slice);

// Seconds the busiest host needs to prepare and infeed its share of a step of
// `global_examples`: the longer of its pipeline (HostInputBytesPerStep at
// host.input_bytes_per_s) and a chip's PCIe infeed (its examples' bytes at
// the per-chip PCIe bandwidth); the two run concurrently. With a few infeed
// hosts, a host's whole share goes through one chip's PCIe.
double HostInputSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice);

// Bytes each core contributes to the cross-replica sum that hands out a
// step's examples when HostWork::infeed_hosts of the slice's hosts feed the
// whole batch (GNMT's v0.6 runner: every core but the feeding one receives
// zeros of the global batch's shape, then the sum and a gather by core id):
// the global batch's infeed_bytes. 0 when every host feeds its own shard.
double InfeedDistributionBytes(const HostWork& work, int64_t global_examples, const topology::Slice& slice);

// Extra seconds of a run's first epoch over `steps` steady steps of `step_s`
// (the device's time, input included): the start-up (host.startup_s +
// host.startup_s_per_host x the slice's hosts), and,
// when `config` caches decoded examples, the time each host takes to fill its
// cache (FirstEpochFillBytes at host.cache_fill_bytes_per_s) beyond what the
// steps take anyway.
// REQUIRES: steps >= 1, train_examples >= 1.
double FirstEpochExtraS(const HostWork& work, const StepConfig& config, double step_s, int64_t steps,
                        int64_t train_examples, const topology::Slice& slice);

// Stored bytes the busiest host decodes to fill its cache with its shard of
// `train_examples`: decode_bytes per example, or infeed_bytes where the
// model states none.
double FirstEpochFillBytes(const HostWork& work, int64_t train_examples, const topology::Slice& slice);

// Seconds one evaluation step's results of `global_examples` take to reach
// the hosts: a chip's share at the per-chip PCIe bandwidth.
double OutfeedSeconds(const HostWork& work, int64_t global_examples, const topology::Slice& slice);

// Seconds a host takes to score an evaluation of `eval_examples`:
// score_ops per example at host.scoring_ops_per_s per process, with
// scoring_processes (at most host.vcpus) processes at once, then
// serial_score_ops per example in one process.
double HostScoringSeconds(const HostWork& work, int64_t eval_examples, const topology::Slice& slice);

}  // namespace podbench::projection
