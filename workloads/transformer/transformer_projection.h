// Projected mode of the "transformer" workload: what the full-size
// Transformer big (transformer_graph.h) gives the shared composition
// (workloads/projection/projected_run.h), and the step configuration its
// hyperparameters set, which functional mode's emulated clock prices too.
//
// What is the Transformer's own in a run, as Google's v0.6 runner ran it
// (one device program for the whole run, repeat(blocks){train block; decode
// 3003 sentences}; the host scores BLEU in its main thread while the device
// trains on):
//   blocks      an "epoch" of the log is a block of steps_per_block steps;
//   evaluation  the graph's eval list is the beam-search decode (beam 4, 147
//               steps over a 97-token padded source, each beam an instance),
//               a step per sentence batch on the device; BLEU on the host,
//               overlapped with the next block, so only the last one's shows
//               (the tail);
//   converges   after the number of evaluations Google's runs on this slice
//               made (TransformerConvergenceFor; drawn per run seed); the BLEU
//               values logged are MODELLED.
#pragma once

#include <string_view>

#include "base/status.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::transformer {

// The step configuration of `hp` on `slice`, both modes: one core per
// replica, the per-core batch of packed sequences for training and for the
// decode (Google's v0.6 eval batch per core is the training one); the
// all-reduce, weight-update sharding, gradient dtype and Adam or LazyAdam.
projection::StepConfig StepConfigOf(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// The full-size Transformer big under StepConfigOf.
Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Blocks of steps_per_block steps, the decode of the 3003 newstest2014
// sentences (none with projected_eval=false), the convergence of `slice`
// (else of the batch), the modelled BLEU curve and the init line.
Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Untimed initialisation (init_start..run_start) of both modes: graph build,
// compile, the warm-up steps and Google's sleep(240), a straight line
// through Google's v0.6 Transformer init times.
projection::InitLine TransformerInitLine();

}  // namespace podbench::transformer
