// Test plugins whose function table the loader must refuse, one per TEST_PLUGIN_FLAW, each with
// a message naming the library and the flaw (plugin_library_test.cpp):
//   no_entry       exports no mlacheck_backend_entry (a C++-mangled one instead)
//   null_table     the entry point returns NULL
//   wrong_abi      a table of ABI version 2
//   small_struct   struct_size smaller than the harness's table
//   null_run       run is NULL
//   no_name        name is NULL
//   bad_memory     memory is neither host nor device
//   open_fails     open() returns NULL with a message
#include <cstdio>
#include <string_view>

#include "mlacheck/backend_abi.h"

#define MLACHECK_STRINGIFY_VALUE(x) #x
#define MLACHECK_STRINGIFY(x) MLACHECK_STRINGIFY_VALUE(x)

namespace {

constexpr std::string_view kFlaw = MLACHECK_STRINGIFY(TEST_PLUGIN_FLAW);

int instance_storage = 0;

void* open_instance(std::int32_t device_index, char* error, std::size_t error_size) {
  if (kFlaw == "open_fails") {
    std::snprintf(error, error_size, "no accelerator of the kind this test plugin wants (device %d)", device_index);
    return nullptr;
  }
  return &instance_storage;
}
void close_instance(void*) {}
const char* supports(void*, const mlacheck_mla_problem*) { return nullptr; }
std::uint64_t workspace_bytes(void*, const mlacheck_mla_problem*) { return 0; }
std::int32_t run(void*, const mlacheck_mla_problem*, const mlacheck_mla_tensors*, void*, char*, std::size_t) { return 0; }

const mlacheck_backend_v1 kTable = {
    kFlaw == "wrong_abi" ? 2u : MLACHECK_BACKEND_ABI_VERSION,
    kFlaw == "small_struct" ? static_cast<std::uint32_t>(sizeof(mlacheck_backend_v1) - sizeof(void*))
                            : static_cast<std::uint32_t>(sizeof(mlacheck_backend_v1)),
    kFlaw == "no_name" ? nullptr : "test-broken",
    "0.0-test",
    kFlaw == "bad_memory" ? 5 : MLACHECK_MEMORY_HOST,
    1,
    MLACHECK_LSE_NATURAL,
    -1,
    open_instance,
    close_instance,
    supports,
    workspace_bytes,
    kFlaw == "null_run" ? nullptr : run,
};

}  // namespace

#if defined(TEST_PLUGIN_NO_ENTRY)
// Forgot extern "C": the symbol is mangled, and the loader finds no mlacheck_backend_entry.
MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t) { return &kTable; }
#else
extern "C" MLACHECK_BACKEND_EXPORT const mlacheck_backend_v1* mlacheck_backend_entry(std::uint32_t) {
  return kFlaw == "null_table" ? nullptr : &kTable;
}
#endif
