#include "harness/cli/store_util.h"

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
    Fail(ctx, command, store.status());
    return nullptr;
  }
  return std::move(store).value();
}

}  // namespace podbench::cli
