#include "workloads/transformer/transformer_functional.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/ops/optimizers.h"

namespace podbench::transformer {

double LearningRateSchedule::At(int64_t step) const {
  const double s = static_cast<double>(step);
  return constant * std::pow(static_cast<double>(hidden), -0.5) *
         std::min(s * std::pow(warmup_steps, -1.5), std::pow(s, -0.5));
}

FunctionalTransformer::FunctionalTransformer(const FunctionalConfig& c) : cfg_(c), layout_(c.model) {}

FunctionalTransformer::~FunctionalTransformer() = default;

Result<std::unique_ptr<FunctionalTransformer>> FunctionalTransformer::Create(const FunctionalConfig& config) {
  PODBENCH_RETURN_IF_ERROR(config.model.Validate());
  const int cores = config.parallel.cores;
  if (cores < 1 || config.global_batch < cores || config.global_batch % cores != 0) {
    return Status::InvalidArgument("functional transformer: global_batch " + std::to_string(config.global_batch) +
                                   " must be a positive multiple of the " + std::to_string(cores) + " cores");
  }
  const AdamConfig& a = config.adam;
  if (!(a.beta1 >= 0 && a.beta1 < 1) || !(a.beta2 >= 0 && a.beta2 < 1) || !(a.epsilon > 0)) {
    return Status::InvalidArgument("functional transformer: Adam needs 0 <= beta1, beta2 < 1 and epsilon > 0");
  }
  std::unique_ptr<FunctionalTransformer> t(new FunctionalTransformer(config));
  PODBENCH_ASSIGN_OR_RETURN(t->dp_, functional::DataParallel::Create(config.parallel, t->layout_.total));
  t->dp_->SetWeights(InitialParameters(config.model, config.seed));
  t->cores_.resize(static_cast<size_t>(cores));  // this process's cores only
  for (int c = t->dp_->local_cores().begin; c < t->dp_->local_cores().end; ++c) {
    t->cores_[static_cast<size_t>(c)] = std::make_unique<TransformerCore>(config.model, t->layout_);
  }
  t->adam_m_.assign(static_cast<size_t>(t->layout_.total), 0.f);
  t->adam_v_.assign(static_cast<size_t>(t->layout_.total), 0.f);
  return t;
}

Result<double> FunctionalTransformer::ComputeGradients(const translation::PackedRows& batch) {
  if (batch.rows != cfg_.global_batch) {
    return Status::InvalidArgument("functional transformer: a batch of " + std::to_string(batch.rows) +
                                   " rows, the global batch is " + std::to_string(cfg_.global_batch));
  }
  const topology::CoreBlock local = dp_->local_cores();
  batch.SharesOfCores(local.begin, local.end, cfg_.global_batch / dp_->cores(), &shares_);
  return ComputeGradients(shares_);
}

Result<double> FunctionalTransformer::ComputeGradients(std::span<const translation::PackedRows> shares) {
  const topology::CoreBlock local = dp_->local_cores();
  const int cores = dp_->cores();
  const int64_t per_core = cfg_.global_batch / cores;
  if (shares.size() != static_cast<size_t>(local.size())) {
    return Status::InvalidArgument("functional transformer: " + std::to_string(shares.size()) + " shares for " +
                                   std::to_string(local.size()) + " local cores");
  }
  // Every core's target tokens: the loss is per token of the global batch.
  std::vector<double> core_tokens(static_cast<size_t>(cores), 0.0);
  for (int c = local.begin; c < local.end; ++c) {
    const translation::PackedRows& share = shares[static_cast<size_t>(c - local.begin)];
    if (share.rows != per_core) {
      return Status::InvalidArgument("functional transformer: core " + std::to_string(c) + "'s share has " +
                                     std::to_string(share.rows) + " rows, not " + std::to_string(per_core));
    }
    for (int32_t s : share.targets_segmentation) core_tokens[static_cast<size_t>(c)] += s != 0;
  }
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(core_tokens));
  const auto tokens = static_cast<int64_t>(std::accumulate(core_tokens.begin(), core_tokens.end(), 0.0));
  if (tokens == 0) return Status::InvalidArgument("functional transformer: the batch has no target tokens");
  std::vector<double> loss(static_cast<size_t>(cores), 0.0);
  ++step_;
  auto work = [&](int c) -> Status {
    StepContext ctx;
    ctx.seed = cfg_.seed;
    ctx.step = step_;
    ctx.core = c;
    ctx.loss_scale = 1.0 / static_cast<double>(tokens);
    PODBENCH_ASSIGN_OR_RETURN(auto r, cores_[static_cast<size_t>(c)]->TrainStep(
                                          dp_->weights(c), shares[static_cast<size_t>(c - local.begin)], ctx,
                                          dp_->gradient(c)));
    loss[static_cast<size_t>(c)] = r.first;
    return Status::Ok();
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(dp_->SumGradients());
  PODBENCH_RETURN_IF_ERROR(dp_->ShareCoreValues(loss));
  return std::accumulate(loss.begin(), loss.end(), 0.0) / static_cast<double>(tokens);
}

Status FunctionalTransformer::Update(double lr) {
  if (step_ < 1) return Status::FailedPrecondition("functional transformer: Update before ComputeGradients");
  kernels::AdamParams p;
  p.lr = static_cast<float>(lr);
  p.beta1 = static_cast<float>(cfg_.adam.beta1);
  p.beta2 = static_cast<float>(cfg_.adam.beta2);
  p.epsilon = static_cast<float>(cfg_.adam.epsilon);
  return dp_->ApplyUpdate([&](int, int64_t begin, int64_t end, float* w, const float* g) {
    kernels::AdamUpdate(w + begin, g + begin, adam_m_.data() + begin, adam_v_.data() + begin, end - begin, p, step_);
  });
}

Result<std::vector<std::vector<int32_t>>> FunctionalTransformer::Translate(
    const std::vector<std::vector<int32_t>>& sources, const translation::BeamSearchOptions& beam, int extra_length,
    int chunk) {
  if (chunk < 1 || extra_length < 0) {
    return Status::InvalidArgument("functional transformer: chunk must be >= 1 and extra_length >= 0");
  }
  std::vector<std::vector<int32_t>> out(sources.size());
  const int64_t chunks = (static_cast<int64_t>(sources.size()) + chunk - 1) / chunk;
  const int cores = dp_->cores();
  auto work = [&](int c) -> Status {
    TransformerCore& core = *cores_[static_cast<size_t>(c)];
    for (int64_t k = c; k < chunks; k += cores) {
      const size_t first = static_cast<size_t>(k * chunk);
      const size_t last = std::min(sources.size(), first + static_cast<size_t>(chunk));
      std::vector<std::span<const int32_t>> src;
      size_t longest = 0;
      for (size_t i = first; i < last; ++i) {
        src.emplace_back(sources[i]);
        longest = std::max(longest, sources[i].size());
      }
      PODBENCH_RETURN_IF_ERROR(core.StartDecoding(dp_->weights(c), src));
      translation::BeamSearchOptions o = beam;
      o.max_steps = static_cast<int>(longest) + extra_length;
      PODBENCH_ASSIGN_OR_RETURN(
          auto results, translation::BeamSearch(static_cast<int>(src.size()), cfg_.model.vocab, o,
                                                [&](const translation::DecodeStep& s, std::span<float> lp) {
                                                  return core.DecodeStep(s.step, s.parent_rows, s.sentences, s.tokens, lp);
                                                }));
      for (size_t i = 0; i < results.size(); ++i) out[first + i] = std::move(results[i].tokens);
    }
    return Status::Ok();
  };
  PODBENCH_RETURN_IF_ERROR(dp_->OnEveryCore(work));
  PODBENCH_RETURN_IF_ERROR(functional::ShareRoundRobinRows(*dp_, chunk, out));
  return out;
}

}  // namespace podbench::transformer
