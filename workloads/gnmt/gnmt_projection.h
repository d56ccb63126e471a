// Projected mode of the "gnmt" workload: what the full-size GNMT
// (gnmt_graph.h) gives the shared composition
// (workloads/projection/projected_run.h), and the step configuration its
// hyperparameters set.
//
// What is GNMT's own in a run, as Google's v0.6 runner ran it
// (../shared/reference/gnmt-v0.6.md, "§" below):
//   blocks      a block is one epoch of int(3,442,299 / B) steps (§2), an
//               evaluation after each;
//   infeed      num_infeed_workers hosts (1 at tpu-v3-32, 2 above) each feed
//               the whole global batch to their first core on alternate
//               steps; every other core gets zeros of full size, then a
//               cross-replica sum and a gather by core id (§3): the graph's
//               HostWork::infeed_hosts, priced by the shared layer;
//   buckets     each global batch holds one length bucket and the LSTM loops
//               run to its longest sequence (§3): the training step is the
//               bucket-mix-weighted mean of the graph priced at each
//               bucket's length (StepSpec::train_mix). The mix is MODELLED
//               (GnmtBucketMix);
//   gradients   Adam on fp32 gradients; the embedding gradient reaches the
//               cross-replica sum dense (§1), so the all-reduce is the whole
//               ~164.8 M fp32 values, ~0.66 GB a step;
//   evaluation  160 decoder steps at beam 5 whatever the lengths (§4) over
//               3072 (v3-32, 6 steps of 512) or 4096 (1 step) padded
//               sentences (§3); BLEU on the host at the system file's
//               scoring rate, overlapped with the next epoch's training,
//               which the device runs on meanwhile (§5);
//   start-up    the shared layer's start-up after run_start;
//   converges   after the number of evaluations Google's runs on this slice
//               made (GnmtConvergenceFor, §2 and §5; drawn per run seed); the
//               BLEU values logged are MODELLED.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::gnmt {

// MLPerf v0.6: 24.0 uncased SacreBLEU on newstest2014 (§4, G/low_level_runner.py).
inline constexpr double kGnmtTargetBleu = 24.0;

// The epochs at which Google's v0.6 runs on a slice first reached 24.0 BLEU
// and how many of its 10 runs did (§2, "epochs to target", from
// Google/results/tpu-v3-<N>/gnmt/result_{0..9}.txt).
struct GnmtConvergencePoint {
  int64_t epochs = 0;
  int runs = 0;
};
struct GnmtConvergenceRow {
  std::string_view slice;
  std::vector<GnmtConvergencePoint> points;  // runs add up to 10
};
const std::vector<GnmtConvergenceRow>& GnmtConvergenceTable();
// The row of `slice`, or nullptr.
const GnmtConvergenceRow* GnmtConvergenceFor(std::string_view slice);

// One length bucket of a training epoch: the share of global batches that
// hold it and how many time steps its LSTM loops run.
struct GnmtBucket {
  double weight = 0;
  int64_t length = 0;
};
// The bucket mix of training pairs at `max_length` (MODELLED, not read from
// any log or file). Google's pipeline (§3): bucket width (max + 4) / 5,
// bucket id = min(5, length / width), one bucket per global batch; the loop
// runs to the batch's longest pair, priced at the bucket's upper end (its
// longest possible pair, capped at max_length). The share of each bucket is
// derived from the length filter: the longer of a pair's two lengths is
// taken as log-normal with sigma 0.6 (modelled) and the median that makes
// the pairs kept at 48 (3,442,299, Google's epoch, §2) the right share of
// those kept at 75 (3,975,116, NVIDIA's v0.6 log of the same data:
// "Preprocessed data: length: 3975116 ... max length: 75"). With
// `bucketing` false, one bucket at max_length (an ablation). REQUIRES:
// max_length >= 5.
std::vector<GnmtBucket> GnmtBucketMix(int64_t max_length, bool bucketing);

// The step configuration of `hp` on `slice`: one core per replica, Adam,
// fp32 gradients, per-core training batch global/cores and per-core decode
// batch infer_batch/cores (§3).
projection::StepConfig StepConfigOf(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// The full-size GNMT at max_sequence_length under StepConfigOf, its training
// step the bucket mix (GnmtBucketMix) and its infeed from
// projected_infeed_hosts hosts.
Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Epochs of steps_per_epoch steps, the decode of 3003 newstest2014 sentences
// (none with projected_eval=false), the convergence of `slice` (InvalidArgument
// for a slice Google did not run), the modelled BLEU curve and the init line.
Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Untimed initialisation (init_start..run_start): graph build, compile,
// program start and Google's sleep(300), a straight line through the
// medians of Google's v0.6 GNMT logs (§5: 346 s on 16 chips, 381 s on 512).
projection::InitLine GnmtInitLine();

}  // namespace podbench::gnmt
