// Whether this test program was built under AddressSanitizer or
// ThreadSanitizer (GCC's __SANITIZE_*__ macros or clang's __has_feature).
//
// PODBENCH_RELEASE_STAGE_ONLY(why) skips the calling test under a sanitizer.
// It is for the few end-to-end tests whose code paths other tests already run
// under the sanitizers, and which cost minutes of CI's sanitizer stage; the
// release stage still runs them. `why` names where the same code is covered.
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PODBENCH_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define PODBENCH_TEST_SANITIZED 1
#endif

namespace podbench::testing {

#ifdef PODBENCH_TEST_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace podbench::testing

#define PODBENCH_RELEASE_STAGE_ONLY(why)                                                     \
  do {                                                                                        \
    if (::podbench::testing::kSanitized) GTEST_SKIP() << "release stage only: " << (why);   \
  } while (0)
