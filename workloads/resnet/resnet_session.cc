#include "workloads/resnet/resnet_session.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "base/hash.h"
#include "topology/collectives.h"
#include "topology/slice.h"
#include "workloads/projection/projected_run.h"
#include "workloads/resnet/resnet_functional.h"
#include "workloads/resnet/resnet_graph.h"
#include "workloads/resnet/resnet_input.h"
#include "workloads/resnet/resnet_lr.h"
#include "workloads/resnet/resnet_projected.h"
#include "workloads/resnet/resnet_sizing.h"

namespace podbench::resnet {
namespace {

using workloads::BlockResult;
using workloads::EvalResult;
using workloads::TimeBreakdown;

// Momentum SGD: the momentum and weight decay of the MLPerf reference and of
// Goyal et al. 2017 ("Accurate, Large Minibatch SGD").
constexpr float kSgdMomentum = 0.9f;
constexpr float kSgdWeightDecay = 1e-4f;

class FunctionalSession : public workloads::Session {
 public:
  explicit FunctionalSession(const workloads::RunContext& ctx) : ctx_(ctx) {}

  // Generates the data and builds the network. The emulated init time is
  // the projected one (it stands for compile and start).
  Result<double> Initialize() override {
    const workloads::Hyperparameters& hp = ctx_.hp;
    PODBENCH_ASSIGN_OR_RETURN(topology::Slice slice, topology::Slice::FromName(ctx_.slice.name, *ctx_.system));
    PODBENCH_ASSIGN_OR_RETURN(const ResNetConfig cfg, FunctionalNet(hp));
    batch_ = hp.Int("global_batch_size");
    sgd_ = hp.String("opt_name") == "sgd";
    const int64_t train_n = hp.Int("functional_train_examples");
    const int64_t eval_n = hp.Int("functional_eval_examples");
    // The emulated clock: the functional graph under the run's step configuration.
    projection::StepSpec spec;
    spec.graph = ResNetGraph(cfg);
    spec.config = StepConfigOf(hp, ctx_.slice);
    projection::TrainingSchedule schedule;
    schedule.global_batch = batch_;
    schedule.examples_per_epoch = train_n;
    PODBENCH_ASSIGN_OR_RETURN(pricing_, projection::PriceRun(spec, schedule, eval_n, 0, slice));
    const int64_t block_steps = (kEvalEveryEpochs * train_n + batch_ - 1) / batch_;
    eval_s_ = pricing_.EvalS(pricing_.BlockTrainS(block_steps), false);

    FunctionalConfig fc;
    fc.net = cfg;
    fc.cores = static_cast<int>(ctx_.slice.cores);
    fc.slice = ctx_.slice.name;
    fc.system = ctx_.system.get();
    fc.global_batch = batch_;
    fc.bn_group = static_cast<int>(spec.config.layout.bn_group);
    fc.allreduce = spec.config.layout.allreduce;
    fc.weight_update_sharding = spec.config.layout.weight_update_sharding;
    if (fc.weight_update_sharding) {
      PODBENCH_ASSIGN_OR_RETURN(topology::ShardedAllReduce pair, topology::ShardedPairOf(fc.allreduce));
      fc.reduce_scatter = pair.reduce_scatter;
      fc.all_gather = pair.all_gather;
    }
    fc.precision = hp.String("functional_precision") == "fp32" ? kernels::Precision::kF32 : kernels::Precision::kBf16;
    // v0.6 allows label smoothing only within the LARS package.
    fc.label_smoothing = sgd_ ? 0.f : static_cast<float>(hp.Float("label_smoothing"));
    fc.seed = ctx_.seed;
    fc.ranks = ctx_.ranks;
    PODBENCH_ASSIGN_OR_RETURN(net_, FunctionalResNet::Create(fc));

    FunctionalDataConfig dc;
    dc.images.num_classes = cfg.num_classes;
    dc.images.height = dc.images.width = cfg.image_size;
    dc.images.seed = 20190610;  // the dataset is fixed; the run seed is not
    dc.train_examples = train_n;
    dc.eval_examples = eval_n;
    dc.global_batch = batch_;
    dc.jpeg = hp.String("input") == "jpeg";
    dc.flip = hp.Bool("functional_flip");
    dc.cache_dir = hp.String("functional_data_dir");
    dc.input_threads = static_cast<int>(hp.Int("functional_input_threads"));
    dc.seed = ctx_.seed;
    // Under mpirun: only the images of this rank's cores.
    const FunctionalResNet* net = net_.get();
    const int64_t chunk = EvalChunk();
    dc.train_row_needed = [net](int64_t row) { return net->IsLocalTrainRow(row); };
    dc.eval_image_needed = [net, chunk](int64_t i) { return net->IsLocalEvalImage(i, chunk); };
    PODBENCH_ASSIGN_OR_RETURN(data_, FunctionalData::Create(dc));
    PODBENCH_ASSIGN_OR_RETURN(lr_, LearningRateSchedule::Of(hp, data_->steps_per_epoch()));
    return ProjectedPlanInit();
  }

  Result<BlockResult> TrainBlock(int64_t first_epoch, int64_t epochs) override {
    BlockResult r;
    OptimizerStep st;
    st.optimizer = sgd_ ? kernels::Optimizer::kSgdMomentum : kernels::Optimizer::kLars;
    if (sgd_) {
      st.momentum = kSgdMomentum;
      st.weight_decay = kSgdWeightDecay;
    } else {
      st.weight_decay = static_cast<float>(ctx_.hp.Float("lars_opt_weight_decay"));
      st.epsilon = static_cast<float>(ctx_.hp.Float("lars_epsilon"));
    }
    std::vector<float> x;
    std::vector<int32_t> y;
    double loss_sum = 0;
    for (int64_t e = 0; e < epochs && !r.diverged; ++e) {
      data_->StartEpoch();
      for (int64_t s = 0; s < data_->steps_per_epoch() && !r.diverged; ++s) {
        PODBENCH_RETURN_IF_ERROR(data_->Batch(s, &x, &y));
        // A non-finite loss means training diverged: the step is not
        // applied and the run ends after this block's evaluation, aborted.
        PODBENCH_ASSIGN_OR_RETURN(double loss, net_->ComputeGradients(x.data(), y.data()));
        ++r.steps;
        if (!std::isfinite(loss)) {
          r.diverged = true;
          break;
        }
        loss_sum += loss;
        st.lr = static_cast<float>(lr_.At(step_count_++));
        PODBENCH_RETURN_IF_ERROR(net_->Update(st));
        ctx_.on_step({first_epoch + e, s + 1, data_->steps_per_epoch()});
      }
    }
    r.time = TimeBreakdown::Of(pricing_.step.time, static_cast<double>(r.steps));
    if (r.steps > 0 && !r.diverged) r.mean_loss = loss_sum / static_cast<double>(r.steps);
    return r;
  }

  Result<EvalResult> Evaluate(int64_t) override {
    EvalResult r;
    r.emulated_s = eval_s_;
    const auto& labels = data_->eval_labels();
    const int64_t n = static_cast<int64_t>(labels.size());
    PODBENCH_ASSIGN_OR_RETURN(int64_t correct,
                              net_->CountCorrect(data_->eval_images().data(), labels.data(), n, EvalChunk()));
    r.metrics["top1"] = static_cast<double>(correct) / static_cast<double>(n);
    return r;
  }

  Result<std::string> ParameterFingerprint() const override {
    if (!net_) return Status::FailedPrecondition("resnet: no model before Initialize");
    const std::vector<float>& p = net_->parameters();
    return FingerprintOf({reinterpret_cast<const char*>(p.data()), p.size() * sizeof(float)});
  }

 private:
  // Images per evaluation chunk: one core's share of a training batch.
  int64_t EvalChunk() const { return batch_ / ctx_.slice.cores; }

  // The untimed init of a projected run on this slice.
  Result<double> ProjectedPlanInit() const {
    PODBENCH_ASSIGN_OR_RETURN(projection::RunPlan plan, ProjectedPlan(ctx_.hp, ctx_.slice));
    return plan.init.At(ctx_.slice.chips);
  }

  workloads::RunContext ctx_;
  projection::RunPricing pricing_;
  double eval_s_ = 0;
  int64_t batch_ = 1, step_count_ = 0;
  bool sgd_ = false;
  std::unique_ptr<FunctionalResNet> net_;
  std::unique_ptr<FunctionalData> data_;
  LearningRateSchedule lr_;
};

}  // namespace

std::unique_ptr<workloads::Session> StartFunctionalSession(const workloads::RunContext& ctx) {
  return std::make_unique<FunctionalSession>(ctx);
}

}  // namespace podbench::resnet
