// The emulator's launch, for the fake driver (driver.cpp).
#pragma once
#include "cuda_emu.h"

namespace zkntt_emu {

// Calls a kernel with its parameters as cuLaunchKernel passes them (one pointer per parameter).
using Kernel = void (*)(void** params);

// Runs every thread of every block, cluster by cluster, before it returns; false after a fault
// (said on stderr), whose launch stops there.
bool launch(Kernel kernel, void** params, const char* name, dim3 grid, dim3 block, uint32_t shared_bytes,
            dim3 cluster);

// The kernels the fake module holds (registered by the generated kernels file).
struct KernelEntry {
    const char* name;
    Kernel call;
};
const KernelEntry* find_kernel(const char* name);

}  // namespace zkntt_emu
