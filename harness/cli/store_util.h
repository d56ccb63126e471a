// Helpers the query subcommands share: opening the results store for reading
// and turning a Status into an exit code.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "harness/cli/command.h"
#include "results/store.h"

namespace podbench::cli {

// Opens an existing results database; prints the error and sets the exit
// code (kExitUsage) on failure, returning null.
std::unique_ptr<results::ResultsStore> OpenExistingStore(const std::string& path, CliContext& ctx,
                                                         const char* command);

// Prints "podbench COMMAND: <message>" and sets kExitUsage.
void Fail(CliContext& ctx, const char* command, const Status& st);

}  // namespace podbench::cli
