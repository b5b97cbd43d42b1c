#pragma once
// `mlacheck devices`: the GPU backend this build has and the devices it sees.
#include <CLI/CLI.hpp>

namespace mlacheck::cli {

void add_devices_command(CLI::App& app);
int list_devices();

}  // namespace mlacheck::cli
