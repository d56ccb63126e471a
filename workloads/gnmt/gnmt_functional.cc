#include "workloads/gnmt/gnmt_functional.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kernels/ops/elementwise.h"
#include "kernels/ops/optimizers.h"

namespace podbench::gnmt {

double LearningRateSchedule::At(int64_t step) const {
  if (step < warmup_steps) {
    return lr * std::pow(0.01, static_cast<double>(warmup_steps - step) / static_cast<double>(warmup_steps));
  }
  if (step < decay_start) return lr;
  const int64_t halvings = std::min<int64_t>(decay_steps, (step - decay_start) / decay_interval);
  return lr * std::pow(decay_factor, static_cast<double>(halvings));
}

FunctionalGnmt::FunctionalGnmt(const FunctionalConfig& c) : cfg_(c), layout_(c.model) {}
FunctionalGnmt::~FunctionalGnmt() = default;

Result<std::unique_ptr<FunctionalGnmt>> FunctionalGnmt::Create(const FunctionalConfig& config) {
  PODBENCH_RETURN_IF_ERROR(config.model.Validate());
  const int cores = config.parallel.cores;
  if (cores < 1 || config.global_batch < cores || config.global_batch % cores != 0) {
    return Status::InvalidArgument("functional gnmt: global_batch " + std::to_string(config.global_batch) +
                                   " must be a positive multiple of the " + std::to_string(cores) + " cores");
  }
  if (!(config.beta1 >= 0 && config.beta1 < 1) || !(config.beta2 >= 0 && config.beta2 < 1) ||
      !(config.epsilon > 0)) {
    return Status::InvalidArgument("functional gnmt: Adam needs 0 <= beta1, beta2 < 1 and epsilon > 0");
  }
  if (!(config.max_gradient_norm > 0)) {
    return Status::InvalidArgument("functional gnmt: max_gradient_norm must be > 0");
  }
  std::unique_ptr<FunctionalGnmt> t(new FunctionalGnmt(config));
  PODBENCH_ASSIGN_OR_RETURN(t->dp_, functional::DataParallel::Create(config.parallel, t->layout_.total));
  t->dp_->SetWeights(InitialParameters(config.model, config.seed));
  t->cores_.resize(static_cast<size_t>(cores));  // this process's cores only
  for (int c = t->dp_->local_cores().begin; c < t->dp_->local_cores().end; ++c) {
    t->cores_[static_cast<size_t>(c)] = std::make_unique<GnmtCore>(config.model, t->layout_);
  }
  t->adam_m_.assign(static_cast<size_t>(t->layout_.total), 0.f);
  t->adam_v_.assign(static_cast<size_t>(t->layout_.total), 0.f);
  return t;
}

Result<double> FunctionalGnmt::ComputeGradients(const translation::PackedRows& batch) {
  if (batch.rows != cfg_.global_batch) {
    return Status::InvalidArgument("functional gnmt: a batch of " + std::to_string(batch.rows) +
                                   " rows, the global batch is " + std::to_string(cfg_.global_batch));
  }
  const topology::CoreBlock local = dp_->local_cores();
  std::vector<translation::PackedRows> shares;
  batch.SharesOfCores(local.begin, local.end, cfg_.global_batch / dp_->cores(), &shares);
  return ComputeGradients(shares);
}

Result<double> FunctionalGnmt::ComputeGradients(std::span<const translation::PackedRows> shares) {
  const topology::CoreBlock local = dp_->local_cores();
  const int cores = dp_->cores();
  const int64_t per_core = cfg_.global_batch / cores;
  if (shares.size() != static_cast<size_t>(local.size())) {
    return Status::InvalidArgument("functional gnmt: " + std::to_string(shares.size()) + " shares for " +
                                   std::to_string(local.size()) + " local cores");
  }
  for (size_t k = 0; k < shares.size(); ++k) {
    if (shares[k].rows != per_core) {
      return Status::InvalidArgument("functional gnmt: core " + std::to_string(local.begin + static_cast<int>(k)) +
                                     "'s share has " + std::to_string(shares[k].rows) + " rows, not " +
                                     std::to_string(per_core));
    }
  }
  std::vector<double> loss(static_cast<size_t>(cores), 0.0);
  std::vector<int64_t> positions(static_cast<size_t>(cores), 0);
  norms_.assign(static_cast<size_t>(cores), 0.0);
  ++step_;
  auto work = [&](int c) -> Status {
    const translation::PackedRows& share = shares[static_cast<size_t>(c - local.begin)];
    StepContext ctx;
    ctx.seed = cfg_.seed;
    ctx.step = step_;
    ctx.core = c;
    float* g = dp_->gradient(c);
    PODBENCH_ASSIGN_OR_RETURN(auto r, cores_[static_cast<size_t>(c)]->TrainStep(dp_->weights(c), share, ctx, g));
    loss[static_cast<size_t>(c)] = r.first;
    positions[static_cast<size_t>(c)] = r.second;
    // clip_by_global_norm on this core's own gradient.
    double sq = 0;
    for (int64_t i = 0; i < layout_.total; ++i) sq += static_cast<double>(g[i]) * g[i];
    const double norm = std::sqrt(sq);
    norms_[static_cast<size_t>(c)] = norm;
    if (norm > cfg_.max_gradient_norm) {
      kernels::Scale(static_cast<float>(cfg_.max_gradient_norm / norm), g, g, layout_.total);
    }
    return Status::Ok();
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(dp_->SumGradients());
  // Every rank's cores' values (positions are exact in a double).
  std::vector<double> pos_d(positions.begin(), positions.end());
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(loss));
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(pos_d));
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(norms_));
  for (size_t c = 0; c < positions.size(); ++c) positions[c] = static_cast<int64_t>(pos_d[c]);
  const int64_t n = std::accumulate(positions.begin(), positions.end(), int64_t{0});
  const double sum = std::accumulate(loss.begin(), loss.end(), 0.0);
  return n > 0 ? sum / static_cast<double>(n) : 0.0;
}

Status FunctionalGnmt::Update(double lr) {
  if (step_ < 1) return Status::FailedPrecondition("functional gnmt: Update before ComputeGradients");
  kernels::AdamParams p;
  p.lr = static_cast<float>(lr);
  p.beta1 = static_cast<float>(cfg_.beta1);
  p.beta2 = static_cast<float>(cfg_.beta2);
  p.epsilon = static_cast<float>(cfg_.epsilon);
  return dp_->ApplyUpdate([&](int, int64_t begin, int64_t end, float* w, const float* g) {
    kernels::AdamUpdate(w + begin, g + begin, adam_m_.data() + begin, adam_v_.data() + begin, end - begin, p, step_);
  });
}

Result<std::vector<std::vector<int32_t>>> FunctionalGnmt::Translate(const std::vector<std::vector<int32_t>>& sources,
                                                                    const translation::BeamSearchOptions& beam,
                                                                    int chunk) {
  if (chunk < 1) return Status::InvalidArgument("functional gnmt: chunk must be >= 1");
  std::vector<std::vector<int32_t>> out(sources.size());
  const int64_t chunks = (static_cast<int64_t>(sources.size()) + chunk - 1) / chunk;
  const int cores = dp_->cores();
  auto work = [&](int c) -> Status {
    GnmtCore& core = *cores_[static_cast<size_t>(c)];
    for (int64_t k = c; k < chunks; k += cores) {
      const size_t first = static_cast<size_t>(k * chunk);
      const size_t last = std::min(sources.size(), first + static_cast<size_t>(chunk));
      std::vector<std::span<const int32_t>> src;
      for (size_t i = first; i < last; ++i) src.emplace_back(sources[i]);
      PODBENCH_RETURN_IF_ERROR(core.StartDecoding(dp_->weights(c), src));
      translation::BeamSearchOptions o = beam;
      o.source_positions = static_cast<int>(core.source_length());
      PODBENCH_ASSIGN_OR_RETURN(
          auto results, translation::BeamSearch(static_cast<int>(src.size()), cfg_.model.vocab, o,
                                                [&](const translation::DecodeStep& s, std::span<float> lp) {
                                                  return core.DecodeStep(s.parent_rows, s.sentences, s.tokens, lp,
                                                                         s.attention);
                                                }));
      for (size_t i = 0; i < results.size(); ++i) out[first + i] = std::move(results[i].tokens);
    }
    return Status::Ok();
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(functional::ShareRoundRobinRows(*dp_, chunk, out));
  return out;
}

}  // namespace podbench::gnmt
