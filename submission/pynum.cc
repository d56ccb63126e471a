#include "submission/pynum.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace podbench::submission {

double NumpySum(const double* a, int64_t n) {
  if (n < 8) {
    double res = 0.;
    for (int64_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    int64_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  int64_t n2 = n / 2;
  n2 -= n2 % 8;
  return NumpySum(a, n2) + NumpySum(a + n2, n - n2);
}

double NumpyMean(const std::vector<double>& v) {
  return NumpySum(v.data(), static_cast<int64_t>(v.size())) / static_cast<double>(v.size());
}

double NumpyStd(const std::vector<double>& v) {
  const double mean = NumpyMean(v);
  std::vector<double> sq(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double d = v[i] - mean;
    sq[i] = d * d;
  }
  return std::sqrt(NumpySum(sq.data(), static_cast<int64_t>(sq.size())) / static_cast<double>(v.size()));
}

double NumpyInterp2(double x, double x0, double x1, double y0, double y1) {
  if (std::isnan(x)) return x;
  if (x == x1) return y1;
  if (x < x0) return y0;
  if (x > x1) return y1;
  const double slope = (y1 - y0) / (x1 - x0);
  double r = slope * (x - x0) + y0;
  if (std::isnan(r)) {
    r = slope * (x - x1) + y1;
    if (std::isnan(r) && y0 == y1) r = y0;
  }
  return r;
}

double PyRound(double x, int digits) {
  if (!std::isfinite(x)) return x;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return std::strtod(buf, nullptr);
}

std::string PyRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (!s.empty() && s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t e = s.find('e');
  const int exp10 = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (s[i] != '.') digits += s[i];
  }
  const int decpt = exp10 + 1;  // value = 0.DIGITS x 10^decpt
  std::string out;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
    } else if (static_cast<size_t>(decpt) >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(decpt) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
    }
  } else {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    const int ex = decpt - 1;
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", ex < 0 ? '-' : '+', std::abs(ex));
    out += eb;
  }
  return sign + out;
}

double StudentTCdf(double t, double df) {
  // Cephes stdtr for whole degrees of freedom (the RCP checker's are sums of
  // run counts): the closed-form series in t, exact up to rounding.
  if (!(df > 0) || std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (t == 0) return 0.5;
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const auto k = static_cast<int64_t>(df);
  const double rk = static_cast<double>(k);
  const double x = std::fabs(t);
  const double z = 1.0 + (x * x) / rk;
  constexpr double kMachEp = 1.11022302462515654042e-16;
  double p;
  if ((k & 1) != 0) {
    const double xsqk = x / std::sqrt(rk);
    p = std::atan(xsqk);
    if (k > 1) {
      double f = 1.0, tz = 1.0;
      int64_t j = 3;
      while (j <= k - 2 && (tz / f) > kMachEp) {
        tz *= static_cast<double>(j - 1) / (z * static_cast<double>(j));
        f += tz;
        j += 2;
      }
      p += f * xsqk / z;
    }
    p *= 2.0 / M_PI;
  } else {
    double f = 1.0, tz = 1.0;
    int64_t j = 2;
    while (j <= k - 2 && (tz / f) > kMachEp) {
      tz *= static_cast<double>(j - 1) / (z * static_cast<double>(j));
      f += tz;
      j += 2;
    }
    p = f * x / std::sqrt(z * rk);
  }
  if (t < 0) p = -p;
  return 0.5 + 0.5 * p;
}

double OneSidedPValue(double mean1, double std1, double n1, double mean2, double std2, double n2) {
  const double df = n1 + n2 - 2.0;
  const double svar = ((n1 - 1) * (std1 * std1) + (n2 - 1) * (std2 * std2)) / df;
  const double denom = std::sqrt(svar * (1.0 / n1 + 1.0 / n2));
  const double t = (mean1 - mean2) / denom;
  const double two_sided = StudentTCdf(-std::fabs(t), df) * 2;
  return t < 0 ? two_sided / 2 : 1 - two_sided / 2;
}

std::string PandasJsonDouble(double value) {
  if (std::isnan(value) || std::isinf(value)) return "null";
  const double thres_max = 1e16 - 1;
  const double thres_min = 1e-15;
  std::string out;
  if (value < 0) {
    out = "-";
    value = -value;
  }
  if (value > thres_max || (value != 0.0 && value < thres_min)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15e", value);
    return out + buf;
  }
  const double pow10 = 1e10;
  auto whole = static_cast<unsigned long long>(value);
  const double tmp = (value - static_cast<double>(whole)) * pow10;
  auto frac = static_cast<unsigned long long>(tmp);
  const double diff = tmp - static_cast<double>(frac);
  if (diff > 0.5) {
    ++frac;
    if (static_cast<double>(frac) >= pow10) {
      frac = 0;
      ++whole;
    }
  } else if (diff == 0.5 && (frac == 0 || (frac & 1))) {
    ++frac;
  }
  std::string frac_text;
  if (frac) {
    int count = 10;
    while (!(frac % 10)) {
      --count;
      frac /= 10;
    }
    std::string rev;
    do {
      --count;
      rev += static_cast<char>('0' + frac % 10);
    } while (frac /= 10);
    while (count-- > 0) rev += '0';
    frac_text.assign(rev.rbegin(), rev.rend());
  } else {
    frac_text = "0";
  }
  return out + std::to_string(whole) + "." + frac_text;
}

}  // namespace podbench::submission
