// What a path named on a command line is, for the commands that read a file
// or a folder of files (check, score).
#pragma once

#include <filesystem>

#include "base/status.h"

namespace podbench {

enum class InputPathKind { kFile, kFolder };

// kFile for a regular file, kFolder for a folder (following symbolic links).
// Anything else is an error naming `path`, and nothing is read from it:
//   - missing: NotFound "<path>: no such file or folder";
//   - a loop of symbolic links: InvalidArgument "<path>: a loop of symbolic links";
//   - a device, pipe or socket: InvalidArgument "<path>: not a regular file or
//     folder (a device, pipe or socket); not read" (reading a pipe can wait
//     forever, reading /dev/zero never ends);
//   - anything stat(2) refuses: IOError with the system's reason.
[[nodiscard]] Result<InputPathKind> ClassifyInputPath(const std::filesystem::path& path);

}  // namespace podbench
