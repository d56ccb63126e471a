// libFuzzer target: the system-description parser and checks.
#include "tests/submission/fuzz/fuzz_bodies.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  podbench::submission::fuzz::SystemDesc(data, size);
  return 0;
}
