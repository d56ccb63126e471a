// A fresh temporary folder for one test, removed when it goes out of scope.
#pragma once

#include <filesystem>
#include <string>

namespace podbench::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Runs `command` through /bin/sh; returns its exit status and fills `output`
// with stdout and stderr together.
int RunCommand(const std::string& command, std::string* output);

}  // namespace podbench::testing
