#pragma once
// The backend a `--backend SPEC` names: "hip" is mlacheck's own backend, anything else the path of
// a backend plugin (include/mlacheck/backend_abi.h). One place, so `mlacheck run`'s workers,
// `scenarios` and `bench` all read a spec the same way.
#include <string>
#include <string_view>

#include "device/backend.hpp"

namespace mlacheck {

inline constexpr std::string_view kBuiltinBackendSpec = "hip";

bool is_plugin_spec(std::string_view spec);

// make_hip_backend(device_index) for "hip"; otherwise load_plugin_backend(spec, device_index),
// which throws PluginError (device/plugin/plugin_library.hpp) for a file that is no usable plugin.
// A null backend with a reason means no device can run it (its cases are SKIPPED).
BackendOrReason make_backend(const std::string& spec, int device_index);

}  // namespace mlacheck
