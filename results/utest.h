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
// sizes (2 / C(n1+n2, n1)): when it exceeds alpha no difference can ever be
// significant.
double MinimumExactPValue(int n1, int n2);

}  // namespace podbench::results
