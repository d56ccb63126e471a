// main() of kernels_avx2_test: the kernels' tests on this CPU capped at AVX2
// + FMA (PODBENCH_CPU_ISA=avx2_fma, set before any kernel runs), as an
// AVX2-only CPU would run them: AVX-512 and AMX variants skip, dispatch and
// oneDNN see AVX2 only.
#include <cstdlib>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  setenv("PODBENCH_CPU_ISA", "avx2_fma", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
