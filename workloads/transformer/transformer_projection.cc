#include "workloads/transformer/transformer_projection.h"

#include <string>

#include "workloads/transformer/transformer_google_v06.h"
#include "workloads/transformer/transformer_graph.h"

namespace podbench::transformer {

namespace {
// MLPerf v0.6: 25.0 BLEU on newstest2014.
constexpr double kTarget = 25.0;
}  // namespace

projection::StepConfig StepConfigOf(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice) {
  projection::StepConfig c;
  c.layout.replicas = slice.cores;
  c.layout.allreduce = hp.String("allreduce");
  c.layout.weight_update_sharding = hp.Bool("weight_update_sharding");
  c.layout.gradient_dtype =
      hp.String("gradient_allreduce_dtype") == "bf16" ? projection::DType::kBf16 : projection::DType::kF32;
  c.optimizer = hp.String("opt_name") == "lazy_adam" ? projection::OptimizerKind::kLazyAdam
                                                      : projection::OptimizerKind::kAdam;
  c.per_replica_batch = hp.Int("global_batch_size") / slice.cores;
  c.eval_per_replica_batch = c.per_replica_batch;
  return c;
}

Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice) {
  // The graph does not depend on the hyperparameters: built once.
  static const Result<projection::ModelGraph> graph = BuildTransformerGraph();
  PODBENCH_RETURN_IF_ERROR(graph.status());
  projection::StepSpec s;
  s.graph = *graph;
  s.config = StepConfigOf(hp, slice);
  s.options.distributed_eval = hp.Bool("distributed_eval");
  return s;
}

Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice) {
  projection::RunPlan p;
  p.schedule.global_batch = hp.Int("global_batch_size");
  p.schedule.examples_per_epoch = hp.Int("steps_per_block") * p.schedule.global_batch;
  p.eval_examples = hp.Bool("projected_eval") ? kEvalSentences : 0;
  const TransformerConvergenceRow& row = TransformerConvergenceFor(slice.name, p.schedule.global_batch);
  for (const TransformerConvergencePoint& pt : row.points) p.convergence.points.push_back({pt.evals, pt.runs});
  p.convergence.source = "the evaluations Google's v0.6 runs on " + std::string(row.slice) +
                         " made until 25.0 BLEU (" + std::to_string(p.convergence.total_runs()) + " runs)";
  p.curve = {
      .metric = "bleu",
      .target = kTarget,
      .first = 13.8,
      .below = 0.4,
      .above = 0.3,
      .per_label_after = 0.2,
      .cap = 27.0,
      .shape = 2,
      .how = "evaluations to 25.0 BLEU drawn per seed from Google's v0.6 runs on this slice; BLEU "
              "before then on a modelled curve",
  };
  p.init = TransformerInitLine();
  return p;
}

projection::InitLine TransformerInitLine() {
  return {386.0, 0.504, "Google's v0.6 Transformer logs' median init times (394 s on 16 chips, 902 s on 1024)"};
}

}  // namespace podbench::transformer
