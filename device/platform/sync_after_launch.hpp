// Launches are asynchronous, so a fault inside a kernel normally surfaces at the next
// synchronising call and is blamed on that call. With this switch on, GPU_CHECK_LAUNCH waits for
// each kernel, so a fault is reported against the kernel that caused it. Slower; off by default
// (the CLI and fault-hunting tests turn it on). Process-wide; host code may include this.
#pragma once

namespace mlacheck {

void set_sync_after_launch(bool on) noexcept;
bool sync_after_launch() noexcept;

}  // namespace mlacheck
