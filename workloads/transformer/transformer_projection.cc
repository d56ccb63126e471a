#include "workloads/transformer/transformer_projection.h"

#include <algorithm>
#include <cmath>

#include "workloads/projection/host.h"
#include "workloads/projection/overrides.h"
#include "workloads/transformer/transformer_google_v06.h"
#include "workloads/transformer/transformer_graph.h"

namespace podbench::transformer {

double TransformerRunProjection::eval_s(bool last) const {
  if (!eval_priced) return 0;
  if (last) return eval.device_s + eval.scoring_s;
  return eval.exposed_s(block_train_s());
}

Result<TransformerRunProjection> ProjectTransformerRun(const projection::ModelGraph& graph,
                                                       const projection::StepConfig& config,
                                                       const topology::Slice& slice,
                                                       const projection::ProjectionOptions& options,
                                                       int64_t steps_per_block, int64_t eval_sentences,
                                                       bool eval_priced) {
  if (steps_per_block < 1) {
    return Status::InvalidArgument("transformer: steps_per_block " + std::to_string(steps_per_block) +
                                   " must be >= 1");
  }
  TransformerRunProjection r;
  PODBENCH_ASSIGN_OR_RETURN(r.step, projection::ProjectTrainStep(graph, config, slice, options));
  PODBENCH_ASSIGN_OR_RETURN(r.eval, projection::ProjectEvaluation(graph, config, slice, eval_sentences, options));
  r.steps_per_block = steps_per_block;
  r.eval_priced = eval_priced;
  // Nothing is cached: the start-up alone (train_examples only matters to a cache).
  r.startup_s = projection::FirstEpochExtraS(graph.host, config, r.step.step_s(), steps_per_block,
                                             steps_per_block * r.step.global_examples, slice);
  return r;
}

ScoreSplit SplitScore(const TransformerRunProjection& run, int64_t evals) {
  ScoreSplit s;
  const double n = static_cast<double>(evals);
  s.training_s = n * run.block_train_s();
  s.startup_s = run.startup_s;
  if (evals >= 1) {
    const double last = run.eval_s(true);
    s.tail_s = run.eval_priced ? run.eval.scoring_s : 0;
    s.evaluation_s = (n - 1) * run.eval_s(false) + last - s.tail_s;
  }
  return s;
}

Result<GooglePrediction> PredictGoogleTransformer(const topology::SystemSpec& system, const std::string& name,
                                                  const std::vector<std::string>& overrides) {
  const TransformerGoogleV06Slice* row = TransformerGoogleV06SliceFor(name);
  if (row == nullptr) return Status::InvalidArgument("no Google v0.6 Transformer configuration for " + name);
  PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(name, system));
  static const Result<projection::ModelGraph> graph = BuildTransformerGraph();
  PODBENCH_RETURN_IF_ERROR(graph.status());
  PODBENCH_ASSIGN_OR_RETURN(projection::StepConfig config, GoogleV06Preset("google-v0.6", name, slice.num_cores()));
  projection::ProjectionOptions options;
  bool eval = true;
  for (const std::string& o : overrides) {
    if (o == "eval=false" || o == "eval=true") {
      eval = o == "eval=true";
      continue;
    }
    PODBENCH_RETURN_IF_ERROR(projection::ApplyOverride(o, slice.num_cores(), &config, &options));
  }
  GooglePrediction p;
  p.slice = name;
  PODBENCH_ASSIGN_OR_RETURN(p.run, ProjectTransformerRun(*graph, config, slice, options, row->steps_per_block,
                                                         kEvalSentences, eval));
  const TransformerConvergenceRow& conv = TransformerConvergenceFor(name, row->global_sequences);
  // The 10 runs' scores, fastest first; the olympic mean drops one of each end.
  std::vector<double> scores;
  double evals = 0;
  for (const TransformerConvergencePoint& pt : conv.points) {
    for (int i = 0; i < pt.runs; ++i) {
      scores.push_back(SplitScore(p.run, pt.evals).total_s());
      evals += static_cast<double>(pt.evals);
    }
  }
  std::sort(scores.begin(), scores.end());
  double sum = 0;
  for (size_t i = 1; i + 1 < scores.size(); ++i) sum += scores[i];
  p.score_min = sum / static_cast<double>(scores.size() - 2) / 60;
  const ScoreSplit lo = SplitScore(p.run, static_cast<int64_t>(evals / double(scores.size())));
  const ScoreSplit hi = SplitScore(p.run, static_cast<int64_t>(evals / double(scores.size())) + 1);
  const double f = evals / double(scores.size()) - std::floor(evals / double(scores.size()));
  p.split.training_s = lo.training_s + f * (hi.training_s - lo.training_s);
  p.split.evaluation_s = lo.evaluation_s + f * (hi.evaluation_s - lo.evaluation_s);
  p.split.startup_s = lo.startup_s;
  p.split.tail_s = lo.tail_s;
  p.published_score_min = conv.published_score_min;
  p.published_gap_s = conv.published_gap_s;
  return p;
}

std::vector<resnet::CalibrationTarget> TransformerCalibrationTargets() {
  std::vector<resnet::CalibrationTarget> t;
  for (const char* slice : {"tpu-v3-32", "tpu-v3-2048"}) {
    t.push_back({std::string("transformer ") + slice,
                 [slice](const topology::SystemSpec& s) -> Result<double> {
                   PODBENCH_ASSIGN_OR_RETURN(GooglePrediction p, PredictGoogleTransformer(s, slice));
                   return p.run.gap_s();
                 },
                 TransformerConvergenceFor(slice, 0).published_gap_s});
  }
  return t;
}

}  // namespace podbench::transformer
