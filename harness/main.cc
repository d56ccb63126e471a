// The composition root: build the CLI, parse, run one subcommand.
#include <iostream>

#include "harness/cli/command.h"

int main(int argc, char** argv) { return podbench::cli::Main(argc, argv, std::cout, std::cerr); }
