#include "base/input_path.h"

#include <system_error>

namespace podbench {

Result<InputPathKind> ClassifyInputPath(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) {
    return Status::InvalidArgument(path.string() + ": a loop of symbolic links");
  }
  if (st.type() == fs::file_type::not_found || ec == std::errc::no_such_file_or_directory) {
    return Status::NotFound(path.string() + ": no such file or folder");
  }
  if (ec) return Status::IOError(path.string() + ": " + ec.message());
  if (fs::is_regular_file(st)) return InputPathKind::kFile;
  if (fs::is_directory(st)) return InputPathKind::kFolder;
  return Status::InvalidArgument(path.string() +
                                 ": not a regular file or folder (a device, pipe or socket); not read");
}

}  // namespace podbench
