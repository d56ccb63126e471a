// The arithmetic of the official MLPerf Python tools, reproduced so that
// podbench's numbers are bit-for-bit theirs: numpy's pairwise sum (np.mean,
// np.std), np.interp between two points, Python's round(x, n) and repr(float),
// and Student's t distribution (scipy.stats.ttest_ind_from_stats).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace podbench::submission {

// numpy's pairwise summation of float64 (PW_BLOCKSIZE 128, 8 accumulators),
// as np.add.reduce does on a contiguous array.
double NumpySum(const double* a, int64_t n);
// np.mean: NumpySum / n (NaN for an empty array, as numpy).
double NumpyMean(const std::vector<double>& v);
// np.std with ddof 0: sqrt(NumpySum((x - mean)^2) / n).
double NumpyStd(const std::vector<double>& v);
// np.interp(x, [x0, x1], [y0, y1]) (x0 < x1; outside the range, the end value).
double NumpyInterp2(double x, double x0, double x1, double y0, double y1);
// Python's round(x, digits) on a float (correctly rounded, ties to even).
double PyRound(double x, int digits);
// Python's repr(float): the shortest string that reads back to `x`, in fixed
// notation when the decimal exponent is in [-4, 16), else as 1.5e+16.
std::string PyRepr(double x);
// P(T <= t) for Student's t with `df` degrees of freedom (NaN when df <= 0).
double StudentTCdf(double t, double df);
// The one-sided p-value the official RCP checker computes from
// ttest_ind_from_stats(m1, s1, n1, m2, s2, n2, equal_var=True): the two-sided
// p halved when t < 0, else 1 - p/2 (that is, P(T <= t)).
double OneSidedPValue(double mean1, double std1, double n1, double mean2, double std2, double n2);
// pandas' to_json float text (ujson, double_precision 10): at most 10
// decimals, trailing zeros dropped, "x.0" for whole numbers.
std::string PandasJsonDouble(double x);

}  // namespace podbench::submission
