#pragma once
// The exit statuses of every mlacheck subcommand (README.md, "Exit status"), so that a CI job can
// tell a failed check from a broken setup whatever command it ran.
#include <CLI/CLI.hpp>

namespace mlacheck::cli {

inline constexpr int kExitOk = 0;          // nothing failed (SKIPPED, MISTRUSTED, KNOWN_BUG included)
inline constexpr int kExitCaseFailed = 1;  // a case FAILED or ERRORED, a regression, a fault survived
inline constexpr int kExitUsage = 2;       // bad usage or setup: an unknown option, a missing file, no such GPU

// Prints what CLI11 prints for a parse error (help text for --help, the error otherwise) and
// returns kExitOk for --help and kExitUsage for every error: CLI11's own codes (105, 106, 109, ...)
// would tell a CI job nothing it can act on.
int parse_error_status(const CLI::App& app, const CLI::ParseError& e);

}  // namespace mlacheck::cli
