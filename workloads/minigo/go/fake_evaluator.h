// A deterministic stand-in for the network, for the search's tests and
// benchmark: no weights, the same output for the same features.
//
// Policy: uniform over the 82 moves, except that `favoured_move` (if set)
// gets `favoured_share` of the mass. Value (black's side): `constant_value`,
// plus, when material_scale > 0, tanh(material_scale * (black stones - white
// stones)) read from the current-board planes, so captures show in the value.
// It records how many calls and positions it served and the largest batch.
#pragma once

#include <cstdint>
#include <span>

#include "workloads/minigo/go/mcts.h"

namespace podbench::minigo {

class FakeEvaluator : public Evaluator {
 public:
  struct Options {
    int favoured_move = kNoPoint;  // 0..81, or kNoPoint for none
    float favoured_share = 0.5f;   // in [0, 1]
    float constant_value = 0.0f;
    float material_scale = 0.0f;
  };
  FakeEvaluator() = default;
  explicit FakeEvaluator(const Options& options) : options_(options) {}

  // Errors: sizes that do not match `batch` (InvalidArgument naming them).
  Status Evaluate(std::span<const float> features, int batch, std::span<float> policy,
                  std::span<float> value) override;

  int64_t calls() const { return calls_; }
  int64_t positions() const { return positions_; }
  int max_batch() const { return max_batch_; }

 private:
  Options options_;
  int64_t calls_ = 0;
  int64_t positions_ = 0;
  int max_batch_ = 0;
};

}  // namespace podbench::minigo
