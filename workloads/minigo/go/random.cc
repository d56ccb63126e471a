#include "workloads/minigo/go/random.h"

#include <bit>
#include <cmath>

namespace podbench::minigo {
namespace {

uint64_t SplitMix64(uint64_t* x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Rng::Rng(uint64_t seed) {
  for (auto& s : s_) s = SplitMix64(&seed);
}

uint64_t Rng::Next() {
  const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = std::rotl(s_[3], 45);
  return result;
}

float Rng::Uniform() { return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f); }

int Rng::UniformInt(int n) { return static_cast<int>((Next() >> 32) * static_cast<uint64_t>(n) >> 32); }

double Rng::Normal() {
  for (;;) {
    const double u = 2.0 * (static_cast<double>(Next() >> 11) * 0x1.0p-53) - 1.0;
    const double v = 2.0 * (static_cast<double>(Next() >> 11) * 0x1.0p-53) - 1.0;
    const double s = u * u + v * v;
    if (s > 0.0 && s < 1.0) return u * std::sqrt(-2.0 * std::log(s) / s);
  }
}

double Rng::Gamma(double alpha) {
  if (alpha < 1.0) {
    // Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha).
    double u;
    do u = static_cast<double>(Next() >> 11) * 0x1.0p-53; while (u == 0.0);
    return Gamma(alpha + 1.0) * std::pow(u, 1.0 / alpha);
  }
  const double d = alpha - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x;
    double v;
    do {
      x = Normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = static_cast<double>(Next() >> 11) * 0x1.0p-53;
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (u > 0.0 && std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

void Rng::Dirichlet(double alpha, std::span<float> out) {
  double sum = 0.0;
  for (float& x : out) {
    const double g = Gamma(alpha);
    x = static_cast<float>(g);
    sum += g;
  }
  if (sum <= 0.0) {  // every variate underflowed: fall back to uniform
    for (float& x : out) x = 1.0f / static_cast<float>(out.size());
    return;
  }
  for (float& x : out) x = static_cast<float>(x / sum);
}

}  // namespace podbench::minigo
