// The composition root: build the CLI, parse, run one subcommand.
#include <iostream>

#include "harness/cli/command.h"

int main(int argc, char** argv) {
  CLI::App app;
  podbench::cli::CliContext ctx{std::cout, std::cerr};
  podbench::cli::BuildApp(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    // CLI11 returns 0 for --help/--version; any real parse error is a usage error.
    return rc == 0 ? 0 : podbench::cli::kExitUsage;
  }
  return ctx.exit_code;
}
