#pragma once
// A backend plugin's shared library, loaded and checked against the backend ABI
// (include/mlacheck/backend_abi.h) before anything of it is called beyond its entry point.
// Every refusal is a PluginError whose message names the library's path and what is wrong, so a
// user pointing `--backend` at the wrong file learns which file and why.
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/support_space.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck {

class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PluginLibrary {
 public:
  // dlopen(path) with every symbol resolved now, then mlacheck_backend_entry(our ABI version)
  // and the table's checks: ABI version, struct size, name, enumerations, function pointers.
  // Throws PluginError.
  explicit PluginLibrary(std::string path);
  ~PluginLibrary();  // dlclose
  PluginLibrary(const PluginLibrary&) = delete;
  PluginLibrary& operator=(const PluginLibrary&) = delete;

  const std::string& path() const noexcept { return path_; }
  const mlacheck_backend_v1& table() const noexcept { return *table_; }
  std::string name() const { return table_->name; }
  std::string version() const { return table_->version != nullptr ? table_->version : ""; }
  bool on_device() const noexcept { return table_->memory == MLACHECK_MEMORY_DEVICE; }
  // The support space the plugin declares (mlacheck_backend_space, optional); nullopt for none.
  const std::optional<SupportSpace>& space() const noexcept { return space_; }

 private:
  std::string path_;
  void* handle_ = nullptr;
  const mlacheck_backend_v1* table_ = nullptr;
  std::optional<SupportSpace> space_;
};

}  // namespace mlacheck
