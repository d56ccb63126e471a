// Whether this test program was built under AddressSanitizer or
// ThreadSanitizer (PODBENCH_SANITIZED, base/sanitizers.h).
//
// PODBENCH_RELEASE_STAGE_ONLY(why) skips the calling test under a sanitizer.
// It is for the few end-to-end tests whose code paths other tests already run
// under the sanitizers, and which cost minutes of CI's sanitizer stage; the
// release stage still runs them. `why` names where the same code is covered.
#pragma once

#include "base/sanitizers.h"

namespace podbench::testing {

#ifdef PODBENCH_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace podbench::testing

#define PODBENCH_RELEASE_STAGE_ONLY(why)                                                     \
  do {                                                                                        \
    if (::podbench::testing::kSanitized) GTEST_SKIP() << "release stage only: " << (why);   \
  } while (0)
