#include "device/backend_factory.hpp"

#include "device/plugin/plugin_backend.hpp"

namespace mlacheck {

bool is_plugin_spec(std::string_view spec) { return spec != kBuiltinBackendSpec; }

BackendOrReason make_backend(const std::string& spec, int device_index) {
  if (!is_plugin_spec(spec)) return make_hip_backend(device_index);
  return load_plugin_backend(spec, device_index);
}

}  // namespace mlacheck
