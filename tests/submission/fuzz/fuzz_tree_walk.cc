// libFuzzer target: the submission tree walk, on trees built from the input.
#include "tests/submission/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  podbench::submission::fuzz::TreeWalk(data, size);
  return 0;
}
