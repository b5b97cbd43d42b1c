#include "cli/backend_description.hpp"

#include "device/backend_factory.hpp"
#include "device/plugin/plugin_library.hpp"

namespace mlacheck::cli {

std::string describe_backend(const std::string& spec) {
  if (!is_plugin_spec(spec)) return spec;
  const PluginLibrary library(spec);
  const std::string version = library.version();
  return "plugin " + library.name() + (version.empty() ? "" : " " + version) + " from " + spec + " (" +
         (library.on_device() ? "device" : "host") + " memory)";
}

BackendKind backend_kind(const std::string& spec) {
  return is_plugin_spec(spec) ? BackendKind::external : BackendKind::built_in;
}

std::optional<SupportSpace> backend_space(const std::string& spec) {
  if (!is_plugin_spec(spec)) return std::nullopt;
  return PluginLibrary(spec).space();
}

bool runs_on_host(const std::string& spec) { return is_plugin_spec(spec) && !PluginLibrary(spec).on_device(); }

}  // namespace mlacheck::cli
