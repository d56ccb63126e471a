// Build identity, generated at build time from git (cmake/WriteGitVersion.cmake).
#pragma once

namespace podbench {
// The project version, e.g. "0.1.0".
const char* Version();
// The short commit hash, with "-dirty" when tracked files had changes at build time.
const char* GitHash();
}  // namespace podbench
