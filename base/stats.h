// Order statistics every module takes of its samples.
#pragma once

#include <vector>

namespace podbench {

// The median of `v`: its middle value, or the mean of the two middle values
// for an even count. NaN when `v` is empty.
double Median(std::vector<double> v);

}  // namespace podbench
