#pragma once
// Checks the launchers run on their arguments before anything reaches a kernel. Each failure is a
// std::invalid_argument that names the launcher and the argument, so a bad call is fixed from
// the message alone.
#include <cstddef>
#include <string>
#include <string_view>

namespace mlacheck::layout {

[[noreturn]] void fail_argument(std::string_view launcher, std::string_view argument, const std::string& reason);

void require_pointer(std::string_view launcher, std::string_view argument, const void* pointer);

// Every element access goes through a typed pointer, so even the narrowest path needs this.
void require_aligned(std::string_view launcher, std::string_view argument, const void* pointer, std::size_t bytes);

bool is_aligned(const void* pointer, std::size_t bytes);

}  // namespace mlacheck::layout
