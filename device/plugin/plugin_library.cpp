#include "device/plugin/plugin_library.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <string_view>

#include "device/staging/abi_problem.hpp"

namespace mlacheck {

namespace {

[[noreturn]] void refuse(const std::string& path, const std::string& what) {
  throw PluginError("backend plugin " + path + ": " + what);
}

std::string table_problem(const mlacheck_backend_v1& t) {
  if (t.abi_version != MLACHECK_BACKEND_ABI_VERSION) {
    return "it was built against backend ABI version " + std::to_string(t.abi_version) + ", this mlacheck speaks " +
           std::to_string(MLACHECK_BACKEND_ABI_VERSION);
  }
  if (t.struct_size < sizeof(mlacheck_backend_v1)) {
    return "its mlacheck_backend_v1 is " + std::to_string(t.struct_size) + " bytes, this mlacheck's is " +
           std::to_string(sizeof(mlacheck_backend_v1)) + " (built against an older backend_abi.h?)";
  }
  if (t.name == nullptr || *t.name == '\0') return "its table has no name";
  if (t.memory != MLACHECK_MEMORY_HOST && t.memory != MLACHECK_MEMORY_DEVICE) {
    return "memory is " + std::to_string(t.memory) + ", not MLACHECK_MEMORY_HOST (0) or MLACHECK_MEMORY_DEVICE (1)";
  }
  if (t.writes_lse != 0 && t.writes_lse != 1) return "writes_lse is " + std::to_string(t.writes_lse) + ", not 0 or 1";
  if (t.lse_base != MLACHECK_LSE_NATURAL && t.lse_base != MLACHECK_LSE_LOG2) {
    return "lse_base is " + std::to_string(t.lse_base) + ", not MLACHECK_LSE_NATURAL (0) or MLACHECK_LSE_LOG2 (1)";
  }
  if (!p_rounding_from_abi(t.p_dtype)) {
    return "p_dtype is " + std::to_string(t.p_dtype) +
           ", not MLACHECK_P_UNDECLARED (-1), MLACHECK_P_Q_DTYPE (-2), MLACHECK_P_MMA_INPUT (-3), "
           "MLACHECK_DTYPE_F32 (0), MLACHECK_DTYPE_BF16 (1) or MLACHECK_DTYPE_F16 (2) (P in fp8 has no tolerance "
           "model)";
  }
  const std::pair<std::string_view, bool> functions[] = {
      {"open", t.open != nullptr},         {"close", t.close != nullptr}, {"supports", t.supports != nullptr},
      {"workspace_bytes", t.workspace_bytes != nullptr}, {"run", t.run != nullptr}};
  for (const auto& [function, present] : functions) {
    if (!present) return "its function pointer " + std::string(function) + " is NULL";
  }
  return "";
}

// dlopen searches the library path for a name without a slash; a file of that name in the working
// directory is what a user means by `--backend libfoo.so`.
std::string dlopen_name(const std::string& path) {
  std::error_code ignored;
  if (path.find('/') == std::string::npos && std::filesystem::is_regular_file(path, ignored)) return "./" + path;
  return path;
}

}  // namespace

PluginLibrary::PluginLibrary(std::string path) : path_(std::move(path)) {
  // RTLD_NOW: a missing dependency fails here with the linker's message, not at some later call.
  // RTLD_LOCAL: two plugins never see each other's symbols.
  handle_ = ::dlopen(dlopen_name(path_).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = ::dlerror();
    refuse(path_, std::string("cannot be loaded: ") + (why != nullptr ? why : "dlopen failed"));
  }
  try {
    ::dlerror();  // clear, so a NULL from dlsym below is told apart from a symbol whose value is NULL
    void* entry = ::dlsym(handle_, MLACHECK_BACKEND_ENTRY);
    if (entry == nullptr) {
      refuse(path_, std::string("exports no ") + MLACHECK_BACKEND_ENTRY +
                        " (it must be extern \"C\" and visible: see include/mlacheck/backend_abi.h)");
    }
    // dlsym hands back an object pointer; POSIX guarantees it converts to the function's type.
    const auto entry_fn = reinterpret_cast<mlacheck_backend_entry_fn>(entry);
    table_ = entry_fn(MLACHECK_BACKEND_ABI_VERSION);
    if (table_ == nullptr) {
      refuse(path_, std::string(MLACHECK_BACKEND_ENTRY) + "(" + std::to_string(MLACHECK_BACKEND_ABI_VERSION) +
                        ") returned NULL: the plugin does not speak backend ABI version " +
                        std::to_string(MLACHECK_BACKEND_ABI_VERSION));
    }
    if (const std::string problem = table_problem(*table_); !problem.empty()) refuse(path_, problem);
    // The optional space (a version-1 addition): absent or NULL declares none.
    if (void* space = ::dlsym(handle_, MLACHECK_BACKEND_SPACE); space != nullptr) {
      const char* text = reinterpret_cast<mlacheck_backend_space_fn>(space)(MLACHECK_BACKEND_SPACE_VERSION);
      if (text != nullptr) {
        try {
          space_ = parse_space(text);
        } catch (const std::invalid_argument& e) {
          refuse(path_, std::string(MLACHECK_BACKEND_SPACE) + " declares a space mlacheck cannot read: " + e.what());
        }
      }
    }
  } catch (...) {
    ::dlclose(handle_);
    throw;
  }
}

PluginLibrary::~PluginLibrary() { ::dlclose(handle_); }

}  // namespace mlacheck
