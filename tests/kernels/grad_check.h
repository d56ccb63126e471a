// Finite-difference checks of analytic gradients, shared by the kernel tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace podbench::kernels::testing {

inline std::vector<float> RandomVec(std::size_t n, std::uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// At each coordinate i of `at`, compares grad[i] with the central
// difference of loss() (which reads x) with step eps, within tol relative
// to max(1, |difference|). REQUIRES: every i < x.size().
inline void ExpectGradientMatchesAt(std::vector<float>& x, const std::vector<float>& grad,
                                    const std::function<double()>& loss, const std::vector<std::size_t>& at,
                                    const std::string& what, double eps, double tol) {
  ASSERT_EQ(x.size(), grad.size()) << what;
  for (std::size_t i : at) {
    const float keep = x[i];
    x[i] = float(keep + eps);
    const double up = loss();
    x[i] = float(keep - eps);
    const double down = loss();
    x[i] = keep;
    const double numeric = (up - down) / (2 * eps);
    EXPECT_NEAR(grad[i], numeric, tol * std::max(1.0, std::abs(numeric))) << what << " at " << i;
  }
}

// As ExpectGradientMatchesAt, at up to `samples` evenly spaced coordinates.
inline void ExpectGradientMatches(std::vector<float>& x, const std::vector<float>& grad,
                                  const std::function<double()>& loss, const char* what,
                                  double eps = 1e-2, double tol = 2e-2, std::size_t samples = 24) {
  std::vector<std::size_t> at;
  const std::size_t step = std::max<std::size_t>(1, x.size() / samples);
  for (std::size_t i = 0; i < x.size(); i += step) at.push_back(i);
  ExpectGradientMatchesAt(x, grad, loss, at, what, eps, tol);
}

inline double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += double(a[i]) * b[i];
  return s;
}

}  // namespace podbench::kernels::testing
