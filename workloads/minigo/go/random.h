// The search's random numbers: one stream per game, the same on every
// compiler and standard library (std::*_distribution are not), so a seed
// fixes a game.
//
// xoshiro256** (Blackman and Vigna) seeded through splitmix64; gamma
// variates by Marsaglia and Tsang's method (with the U^(1/alpha) boost for
// alpha < 1); a Dirichlet sample is independent gammas normalised.
#pragma once

#include <cstdint>
#include <span>

namespace podbench::minigo {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  uint64_t Next();
  // Uniform in [0, 1), 24 random bits.
  float Uniform();
  // Uniform in [0, n). REQUIRES: n > 0.
  int UniformInt(int n);
  // Standard normal (Marsaglia's polar method).
  double Normal();
  // Gamma(alpha, 1). REQUIRES: alpha > 0.
  double Gamma(double alpha);
  // Fills `out` with a Dirichlet(alpha, ..., alpha) sample (sums to 1).
  // REQUIRES: alpha > 0, !out.empty().
  void Dirichlet(double alpha, std::span<float> out);

 private:
  uint64_t s_[4];
};

}  // namespace podbench::minigo
