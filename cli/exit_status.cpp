#include "cli/exit_status.hpp"

namespace mlacheck::cli {

int parse_error_status(const CLI::App& app, const CLI::ParseError& e) {
  return app.exit(e) == static_cast<int>(CLI::ExitCodes::Success) ? kExitOk : kExitUsage;
}

}  // namespace mlacheck::cli
