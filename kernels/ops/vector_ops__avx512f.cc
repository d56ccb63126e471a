// The VectorOps loops compiled for avx512f (this file's flags: kernels/CMakeLists.txt).
#include "kernels/ops/vector_ops_impl.h"

namespace podbench::kernels::ops_internal {

VectorOps VectorOps_Avx512f() { return MakeVectorOps(); }

}  // namespace podbench::kernels::ops_internal
