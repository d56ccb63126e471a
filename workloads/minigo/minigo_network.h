// MiniGo's v0.6 dual network at its real size, trained for real on
// podbench's kernels (fp32, one kernel thread per call so a result depends
// on the inputs alone), and an Evaluator that puts the leaves of many games'
// searches through it in batches.
//
// Architecture (../shared/reference/minigo-v0.6.md §Network; the sizes are
// NVIDIA's architecture.flags for the 9x9 board):
//   input [n, 9, 9, 17] NHWC (go/features.h);
//   trunk: conv3x3 17 -> conv_width, BN, ReLU; then trunk_layers residual
//     blocks conv3x3 -> BN -> ReLU -> conv3x3 -> BN, + input, ReLU.
//     Convolutions have no bias; BN momentum 0.95, epsilon 1e-5, with scale
//     and centre;
//   policy head: conv1x1 -> 2, BN without scale or centre, ReLU, dense
//     162 -> 82 (with bias) = the logits, softmax;
//   value head: conv1x1 -> 1, BN without scale or centre, ReLU, dense
//     81 -> fc_width + ReLU, dense fc_width -> 1, tanh. The value is from
//     BLACK's side (go/mcts.h), as are the training targets.
// At conv_width 32, trunk_layers 9, fc_width 64: 190,775 weights and
// 13.87 M multiply-adds per position (the reference's ~0.19 M and ~13.9 M,
// minigo-v0.6-loop.md §2 "Network size").
//
// Loss (minigo-v0.6.md §Network "Loss"), over a batch of n examples with
// search probabilities pi (n x 82, rows summing to 1) and outcomes z (n):
//   policy = mean_i ( -sum_j pi_ij log softmax(logits_i)_j )
//   value  = value_cost_weight * mean_i (v_i - z_i)^2         (0.25)
//   l2     = l2_strength * sum w^2 / 2 over every parameter but the dense
//            biases (tf.nn.l2_loss over the non-bias variables; 1e-4).
// ComputeGradients returns the three and leaves the gradient of their sum.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/minigo/go/mcts.h"

namespace podbench::minigo {

struct NetworkConfig {
  int conv_width = 32;    // architecture.flags --conv_width=32
  int trunk_layers = 9;   // architecture.flags --trunk_layers=9
  int fc_width = 64;      // architecture.flags --fc_width=64
  float value_cost_weight = 0.25f;  // minigo-v0.6.md §Network "Loss"
  float l2_strength = 1e-4f;        // minigo-v0.6.md §Network "Loss"
  float bn_momentum = 0.95f;        // minigo-v0.6.md §Network "Trunk"
  float bn_epsilon = 1e-5f;
  // Each out-of-range field is an InvalidArgument naming it.
  Status Validate() const;
};

struct Losses {
  double policy = 0, value = 0, l2 = 0;
  double total() const { return policy + value + l2; }
};

class Network {
 public:
  // He-normal convolutions and dense layers, zero biases, BN scale 1 and
  // centre 0, running mean 0 and variance 1; all drawn from `seed`.
  static Result<std::unique_ptr<Network>> Create(const NetworkConfig& config, uint64_t seed);
  ~Network();

  const NetworkConfig& config() const { return cfg_; }
  // A copy with the same parameters and BN statistics (its own buffers, so
  // the copy and this may run on different threads).
  std::unique_ptr<Network> Clone() const;
  // The trainable parameters, flat; and the BN running statistics (mean then
  // variance of each BN, in layer order), which inference reads.
  std::vector<float>& parameters() { return params_; }
  const std::vector<float>& parameters() const { return params_; }
  std::vector<float>& bn_statistics() { return bn_stats_; }
  const std::vector<float>& bn_statistics() const { return bn_stats_; }
  int64_t num_parameters() const { return static_cast<int64_t>(params_.size()); }
  // Multiply-adds of one position's forward pass.
  int64_t MacsPerPosition() const;
  // Whether parameter i takes the L2 term (everything but dense biases).
  bool Decayed(int64_t i) const { return decayed_[static_cast<size_t>(i)] != 0; }

  // Inference (BN on running statistics): `n` positions of kFeatureSize
  // floats -> n x 82 move probabilities and n values. n >= 1.
  void Infer(const float* features, int64_t n, float* policy, float* value);

  // Training forward + backward (BN on the batch's statistics, running
  // statistics updated): writes the gradient of losses.total() with respect
  // to parameters() into `grad` (resized). REQUIRES: n >= 1; pi n x 82, z n.
  Losses ComputeGradients(const float* features, const float* pi, const float* z, int64_t n,
                          std::vector<float>* grad);

  // The loss of a training forward pass with no side effects (running
  // statistics untouched): what finite differences check the gradient on.
  Losses Loss(const float* features, const float* pi, const float* z, int64_t n);

  struct Layout;
  struct Work;

 private:
  Network() = default;
  Losses Forward(const float* features, const float* pi, const float* z, int64_t n, bool training,
                 bool update_running, float* policy, float* value);
  void Backward(const float* features, int64_t n, std::vector<float>* grad);

  NetworkConfig cfg_;
  std::unique_ptr<Layout> layout_;
  std::unique_ptr<Work> work_;
  std::vector<float> params_;
  std::vector<float> bn_stats_;
  std::vector<char> decayed_;
};

// The search's evaluator on a Network: every call's positions go through
// Infer in chunks of at most max_batch. Counts calls and positions.
class NetworkEvaluator : public Evaluator {
 public:
  // REQUIRES: network outlives this; max_batch >= 1.
  NetworkEvaluator(Network* network, int max_batch) : net_(network), max_batch_(max_batch) {}
  // Errors: sizes that do not match `batch` (InvalidArgument naming them).
  Status Evaluate(std::span<const float> features, int batch, std::span<float> policy,
                  std::span<float> value) override;
  int64_t calls() const { return calls_; }
  int64_t positions() const { return positions_; }

 private:
  Network* net_;
  int max_batch_;
  int64_t calls_ = 0, positions_ = 0;
};

}  // namespace podbench::minigo
