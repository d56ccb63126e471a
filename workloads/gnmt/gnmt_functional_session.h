// Functional mode of the "gnmt" workload: the pieces gnmt.cc's plugin takes
// for Mode::kFunctional (its hyperparameters, the `functional` preset, its
// checks, its description and its session), so that the plugin keeps one
// block per mode.
//
// A functional run trains gnmt_functional.h's model on the generated
// language pair (workloads/translation/), in Google's pipeline's length
// buckets (translation/bucketing.h: one bucket per global batch, each batch
// padded to its longest sequence), data parallel over the slice's emulated
// cores, and evaluates every epoch by beam search (beam 5, length penalty
// 0.6, coverage penalty 0.1, as gnmt-v0.6.md section 4) over the held-out
// sentences and BLEU lowercased with the intl tokenizer
// (translation::kGnmtBleu). Its emulated clock is the layer's price of the
// full GNMT graph (gnmt_graph.h, Google's 4 + 4 layers) at the functional
// model's width, vocabulary and lengths.
//
// It reads the MLPerf hyperparameters the plugin defines (global_batch_size,
// max_sequence_length, opt_base_learning_rate,
// opt_learning_rate_warmup_steps, opt_learning_rate_remain_steps,
// opt_learning_rate_decay_interval, opt_learning_rate_decay_factor,
// opt_learning_rate_decay_steps, dropout, label_smoothing,
// max_gradient_norm, eval_beam_size, eval_length_penalty,
// eval_coverage_penalty, max_epochs) and those below.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/workload.h"

namespace podbench::gnmt {

// The functional_* hyperparameters (not logged); the data-parallel
// switches are the plugin's (gnmt.cc).
std::vector<workloads::HyperparameterSpec> FunctionalHyperparameterSpecs();

// The `functional` preset: the tuned run (docs/models/gnmt.md).
std::map<std::string, workloads::HpValue> FunctionalPreset();

// Functional mode's checks (batch over the cores, Google-scale batches, the
// model's sizes).
Status ValidateFunctional(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// The run's description in functional mode: data, model, BLEU target.
Result<workloads::WorkloadDescription> DescribeFunctional(const workloads::Hyperparameters& hp,
                                                          const workloads::SliceInfo& slice);

std::unique_ptr<workloads::Session> StartFunctional(const workloads::RunContext& ctx);

}  // namespace podbench::gnmt
