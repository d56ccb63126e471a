#include "harness/cli/store_util.h"

#include <filesystem>
#include <ostream>

namespace podbench::cli {

void Fail(CliContext& ctx, const char* command, const Status& st) {
  ctx.err << "podbench " << command << ": " << st.message() << "\n";
  ctx.exit_code = kExitUsage;
}

std::unique_ptr<results::ResultsStore> OpenExistingStore(const std::string& path, CliContext& ctx,
                                                         const char* command) {
  results::StoreOptions opt;
  opt.create_if_missing = false;
  auto store = results::ResultsStore::Open(path, opt);
  if (!store.ok()) {
    Status st = store.status();
    // A missing database where the main job keeps its own: name those.
    std::error_code ec;
    if (st.code() == Status::Code::kNotFound && !std::filesystem::exists(path, ec)) {
      std::string found;
      for (const char* other : {"quickstart/podbench.db", "reproduce/podbench.db"}) {
        if (std::filesystem::is_regular_file(other, ec)) found += std::string(found.empty() ? "" : " or ") + other;
      }
      if (!found.empty()) {
        st = Status::NotFound(st.message() + " (the quick start and `podbench reproduce` keep theirs in their " +
                              "folder: pass --db " + found + ")");
      }
    }
    Fail(ctx, command, st);
    return nullptr;
  }
  return std::move(store).value();
}

}  // namespace podbench::cli
