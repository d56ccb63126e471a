#include "results/utest.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>
#include <utility>

namespace podbench::results {
namespace {

// Counts, for every u in [0, n1*n2], how many of the C(n1+n2, n1) orderings
// give U = u: the coefficients of the Gaussian binomial [n1+n2 choose n1]_q,
// built by the recurrence N(i,j,u) = N(i-1,j,u-j) + N(i,j-1,u).
std::vector<double> ExactUDistribution(int n1, int n2) {
  // prev[j] = distribution for (i-1, j); cur[j] for (i, j).
  std::vector<std::vector<double>> prev(n2 + 1, std::vector<double>{1.0});
  for (int i = 1; i <= n1; ++i) {
    std::vector<std::vector<double>> cur(n2 + 1);
    cur[0] = {1.0};
    for (int j = 1; j <= n2; ++j) {
      std::vector<double> d(static_cast<size_t>(i * j) + 1, 0.0);
      for (size_t u = 0; u < prev[j].size(); ++u) d[u + static_cast<size_t>(j)] += prev[j][u];
      for (size_t u = 0; u < cur[j - 1].size(); ++u) d[u] += cur[j - 1][u];
      cur[j] = std::move(d);
    }
    prev = std::move(cur);
  }
  return prev[n2];
}

}  // namespace

double MinimumExactPValue(int n1, int n2) {
  double c = 1;  // C(n1+n2, n1)
  for (int k = 1; k <= n1; ++k) c = c * (n2 + k) / k;
  return std::min(1.0, 2.0 / c);
}

double MinimumPValue(int n1, int n2) {
  if (n1 <= 8 || n2 <= 8) return MinimumExactPValue(std::min(n1, n2), std::max(n1, n2));
  // MannWhitneyU's normal approximation at the most extreme U, without ties.
  const double dn1 = n1, dn2 = n2;
  const double z = (dn1 * dn2 / 2 - 0.5) / std::sqrt(dn1 * dn2 * (dn1 + dn2 + 1) / 12);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

namespace {

// The smallest n in [1, kMaxTestRuns] with p(k) < alpha for every k >= n,
// given that p decreases with k apart from one step up from 8 to 9 (where
// MannWhitneyU changes method); 0 when there is none.
template <typename P>
int FewestFrom(double alpha, P p) {
  for (int n = 1; n <= kMaxTestRuns; ++n) {
    bool holds = true;
    for (int k = n; k <= std::max(n, 9) && holds; ++k) holds = p(k) < alpha;
    if (holds) return n;
  }
  return 0;
}

}  // namespace

int MinimumRunsPerSide(double alpha) {
  assert(alpha > 0);
  return FewestFrom(alpha, [](int k) { return MinimumPValue(k, k); });
}

int MinimumOtherSide(int n, double alpha) {
  assert(n >= 1 && alpha > 0);
  return FewestFrom(alpha, [n](int k) { return MinimumPValue(n, k); });
}

UTestResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y) {
  assert(!x.empty() && !y.empty());
  const size_t n1 = x.size(), n2 = y.size(), n = n1 + n2;
  // Midranks of the pooled sample.
  std::vector<std::pair<double, int>> all;
  all.reserve(n);
  for (double v : x) all.emplace_back(v, 0);
  for (double v : y) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    double t = static_cast<double>(j - i);
    double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k) {
      if (all[k].second == 0) rank_sum_x += midrank;
    }
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2);
  UTestResult r;
  r.u = rank_sum_x - dn1 * (dn1 + 1) / 2;
  const double u_min = std::min(r.u, dn1 * dn2 - r.u);
  const double u_max = dn1 * dn2 - u_min;

  if (!ties && (n1 <= 8 || n2 <= 8)) {
    r.exact = true;
    std::vector<double> dist = ExactUDistribution(static_cast<int>(n1), static_cast<int>(n2));
    double total = std::accumulate(dist.begin(), dist.end(), 0.0);
    double at_most = 0;
    for (size_t u = 0; u < dist.size() && static_cast<double>(u) <= u_min + 1e-9; ++u) {
      at_most += dist[u];
    }
    r.p_value = std::min(1.0, 2.0 * at_most / total);
    return r;
  }
  const double dn = static_cast<double>(n);
  const double mu = dn1 * dn2 / 2;
  const double var = dn1 * dn2 / 12 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {
    r.p_value = 1;  // every value equal: no evidence of any difference
    return r;
  }
  const double z = (u_max - mu - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return r;
}

}  // namespace podbench::results
