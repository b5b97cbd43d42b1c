// The loader's refusals: every way a file can fail to be a usable plugin is a PluginError naming
// the file and the flaw, raised before any call into the plugin beyond its entry point.
#include <gtest/gtest.h>

#include <string>

#include "device/backend_factory.hpp"
#include "device/plugin/plugin_backend.hpp"
#include "device/plugin/plugin_library.hpp"

namespace mlacheck {
namespace {

// The message of the PluginError that loading `path` throws; fails the test when none is thrown.
std::string load_error(const std::string& path) {
  try {
    PluginLibrary library(path);
  } catch (const PluginError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << " loaded without an error";
  return "";
}

void expect_refused(const std::string& path, const std::string& flaw) {
  const std::string message = load_error(path);
  EXPECT_NE(message.find("backend plugin " + path + ": "), std::string::npos) << message;
  EXPECT_NE(message.find(flaw), std::string::npos) << message;
}

TEST(PluginLibrary, MissingFileNamesItAndTheLoadersReason) {
  const std::string path = std::string(NOT_A_LIBRARY) + ".absent.so";
  expect_refused(path, "cannot be loaded: ");
  expect_refused(path, "No such file");
}

TEST(PluginLibrary, FileThatIsNoSharedLibrary) { expect_refused(NOT_A_LIBRARY, "cannot be loaded: "); }

TEST(PluginLibrary, NoEntryPoint) { expect_refused(TEST_PLUGIN_NO_ENTRY, "exports no mlacheck_backend_entry"); }

TEST(PluginLibrary, EntryPointReturningNull) {
  expect_refused(TEST_PLUGIN_NULL_TABLE, "mlacheck_backend_entry(1) returned NULL");
}

TEST(PluginLibrary, OtherAbiVersion) {
  expect_refused(TEST_PLUGIN_WRONG_ABI, "built against backend ABI version 2, this mlacheck speaks 1");
}

TEST(PluginLibrary, TableSmallerThanOurs) {
  expect_refused(TEST_PLUGIN_SMALL_STRUCT, "its mlacheck_backend_v1 is " +
                                               std::to_string(sizeof(mlacheck_backend_v1) - sizeof(void*)) +
                                               " bytes, this mlacheck's is " + std::to_string(sizeof(mlacheck_backend_v1)));
}

TEST(PluginLibrary, NullFunctionPointer) { expect_refused(TEST_PLUGIN_NULL_RUN, "its function pointer run is NULL"); }

TEST(PluginLibrary, NoName) { expect_refused(TEST_PLUGIN_NO_NAME, "its table has no name"); }

TEST(PluginLibrary, UnknownMemoryKind) { expect_refused(TEST_PLUGIN_BAD_MEMORY, "memory is 5"); }

TEST(PluginLibrary, GoodPluginLoadsWithItsDeclarations) {
  const PluginLibrary library(CPU_EXAMPLE_PLUGIN);
  EXPECT_EQ(library.name(), "cpu-example");
  EXPECT_EQ(library.version(), "1.0");
  EXPECT_FALSE(library.on_device());
  EXPECT_EQ(library.table().writes_lse, 1);
}

TEST(PluginBackendLoad, OpenFailingNamesThePluginAndItsMessage) {
  try {
    load_plugin_backend(TEST_PLUGIN_OPEN_FAILS, 0);
    ADD_FAILURE() << "open() failing was not reported";
  } catch (const PluginError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(std::string("backend plugin ") + TEST_PLUGIN_OPEN_FAILS + ": open(0) failed: "),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("no accelerator of the kind this test plugin wants (device 0)"), std::string::npos)
        << message;
  }
}

TEST(BackendFactory, HipSpecIsTheBuiltInBackend) {
  EXPECT_FALSE(is_plugin_spec("hip"));
  EXPECT_TRUE(is_plugin_spec(CPU_EXAMPLE_PLUGIN));
  const BackendOrReason hip = make_backend("hip", 0);
  if (hip.backend) {
    EXPECT_EQ(hip.backend->name(), "hip");
  } else {
    EXPECT_FALSE(hip.reason.empty());
  }
}

TEST(BackendFactory, PathSpecLoadsThePlugin) {
  const BackendOrReason plugin = make_backend(CPU_EXAMPLE_PLUGIN, 0);
  ASSERT_NE(plugin.backend, nullptr) << plugin.reason;
  EXPECT_EQ(plugin.backend->name(), "cpu-example");
  EXPECT_EQ(plugin.backend->version(), "1.0");
  EXPECT_EQ(plugin.backend->device_name(), "cpu");
  EXPECT_THROW(make_backend(TEST_PLUGIN_NO_ENTRY, 0), PluginError);
}

}  // namespace
}  // namespace mlacheck

namespace mlacheck {
namespace {

// The optional mlacheck_backend_space (backend_abi.h): a plugin exporting it declares its space;
// one returning NULL, or one built without it (the CPU example), declares none.
TEST(PluginLibrary, ReadsTheSpaceAPluginDeclares) {
  const PluginLibrary narrow(TEST_PLUGIN_NARROW);
  ASSERT_TRUE(narrow.space().has_value());
  EXPECT_EQ(narrow.space()->lv_rope, (std::vector<std::pair<int, int>>{{512, 64}, {512, 0}}));
  EXPECT_EQ(narrow.space()->max_q_len, 4);
  EXPECT_FALSE(narrow.space()->sequences);
  EXPECT_FALSE(PluginLibrary(TEST_PLUGIN_PICKY).space().has_value());
  EXPECT_FALSE(PluginLibrary(CPU_EXAMPLE_PLUGIN).space().has_value());
}

}  // namespace
}  // namespace mlacheck
