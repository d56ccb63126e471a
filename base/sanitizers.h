// PODBENCH_SANITIZED is defined (to 1) when the including translation unit is
// built under AddressSanitizer or ThreadSanitizer: GCC's __SANITIZE_*__
// macros, or clang's __has_feature. The one place that says so, for the code
// that must act differently there (harness/aligned_new.cc keeps the runtime's
// operator new; tests/testing/sanitizers.h skips release-only tests).
#pragma once

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define PODBENCH_SANITIZED 1
#endif
#endif
#if !defined(PODBENCH_SANITIZED) && (defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__))
#define PODBENCH_SANITIZED 1
#endif
