#pragma once
// What a `--backend SPEC` names, checked before any case runs: "hip", or a plugin library loaded
// and its table checked (not opened: open() may start a GPU runtime, which the commands that fork
// per case must not have in their own process).
#include <optional>
#include <string>

#include "core/support_space.hpp"

#include "plan/case_settle.hpp"

namespace mlacheck::cli {

// "hip", or "plugin <name> <version> from <path> (host memory|device memory)". Throws PluginError
// naming the path for a file that is no usable plugin.
std::string describe_backend(const std::string& spec);

// The settle step's kind of the backend `spec` names (plan/case_settle.hpp): "hip" is built in,
// a plugin external.
BackendKind backend_kind(const std::string& spec);

// The support space the backend `spec` names declares: a plugin's mlacheck_backend_space, none for
// "hip" (the built-in backend takes the whole sweep).
std::optional<SupportSpace> backend_space(const std::string& spec);

// Whether the backend `spec` names runs in host memory (a host plugin): it needs no GPU.
bool runs_on_host(const std::string& spec);

}  // namespace mlacheck::cli
