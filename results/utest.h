// The two-sided Mann-Whitney U test, as Google Benchmark's compare.py runs it
// (through scipy.stats.mannwhitneyu, method "auto").
//
// Exact distribution when there are no ties and at least one sample has 8
// values or fewer; otherwise the normal approximation with tie correction and
// continuity correction.
#pragma once

#include <vector>

namespace podbench::results {

struct UTestResult {
  double u = 0;        // U statistic of the first sample (pairs x > y, ties count 1/2)
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (true) or normal approximation
};

// REQUIRES: x and y non-empty.
UTestResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y);

// The smallest two-sided p-value the exact test can give for samples of these
// sizes (2 / C(n1+n2, n1)).
double MinimumExactPValue(int n1, int n2);

// The smallest two-sided p-value MannWhitneyU can return for untied samples
// of these sizes, by the method it uses for them: MinimumExactPValue when
// either side has 8 values or fewer, else the normal approximation's at
// U = n1*n2. When it is >= alpha, no difference can be significant.
// REQUIRES: n1, n2 >= 1.
double MinimumPValue(int n1, int n2);

// The fewest values a side (both sides equal) from which on the test can
// reach p < alpha: the smallest n with MinimumPValue(k, k) < alpha for every
// k >= n (MinimumPValue is not monotone where the method changes, 8 to 9).
// At alpha 0.05: 4. 0 when no n up to kMaxTestRuns does. REQUIRES: alpha > 0.
int MinimumRunsPerSide(double alpha);

// With `n` values on one side, the fewest on the other from which on the test
// can reach p < alpha (as MinimumRunsPerSide, the other side varying). At
// alpha 0.05: 40 against 1, 8 against 2, 5 against 3, 4 against 4. 0 when no
// size up to kMaxTestRuns does. REQUIRES: n >= 1, alpha > 0.
int MinimumOtherSide(int n, double alpha);

// The largest size MinimumRunsPerSide and MinimumOtherSide look at.
inline constexpr int kMaxTestRuns = 100000;

}  // namespace podbench::results
