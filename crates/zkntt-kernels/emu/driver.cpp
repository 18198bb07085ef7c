// A CUDA driver (libcuda.so) on the CPU: the entry points cudarc and zkntt-gpu call, one emulated
// device of an H100's shape. Device memory is host memory; every stream operation runs when it
// is queued (a stream is always idle, an event complete once recorded), which is one of the
// orders a real stream may take. Launches run the kernels through runtime.cpp.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "runtime.h"

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult OK = 0, INVALID_VALUE = 1, OUT_OF_MEMORY = 2, NO_DEVICE = 100, INVALID_DEVICE = 101,
                   INVALID_HANDLE = 400, NOT_FOUND = 500, LAUNCH_FAILED = 719, NOT_SUPPORTED = 801;

// The emulated device: an H100 SXM's limits, a smaller memory (it is this machine's).
constexpr int SMS = 132;
constexpr int SHARED_PER_SM = 228 << 10;
constexpr int SHARED_OPTIN = 227 << 10;
constexpr int STATIC_SHARED_LIMIT = 48 << 10;
constexpr size_t TOTAL_MEMORY = size_t(8) << 30;
const char* const NAME = "zkntt-emu (CPU, H100 shape)";

struct Module;

struct Func {
    const zkntt_emu::KernelEntry* kernel;
    std::atomic<Module*> module;  // null once its module is unloaded: the handle is then invalid
    std::atomic<int> max_dynamic_shared{STATIC_SHARED_LIMIT};  // set from any thread
    std::atomic<int> non_portable_clusters{0};
};

struct Event {
    std::chrono::steady_clock::time_point at{};
    bool recorded = false;
};

// Never destroyed: threads of the process may still call the driver while it exits.
std::mutex& g_lock = *new std::mutex;
std::map<uintptr_t, size_t>& g_device = *new std::map<uintptr_t, size_t>;  // device allocations: start -> bytes
std::map<uintptr_t, size_t>& g_pinned = *new std::map<uintptr_t, size_t>;  // page-locked host allocations
std::map<uintptr_t, std::pair<void*, size_t>>& g_mappings = *new std::map<uintptr_t, std::pair<void*, size_t>>;
// A loaded module's functions, each with the driver's default attributes. An unloaded module's
// handles go back to a pool by name and the next module asking for that name gets the same address,
// attributes reset: the driver may hand a freed function's address out again, so nothing keyed by
// a function handle may outlive its module.
struct Module {
    std::map<std::string, Func*> funcs;
};
std::set<Module*>& g_modules = *new std::set<Module*>;  // the loaded ones
std::map<std::string, std::vector<Func*>>& g_unloaded_funcs = *new std::map<std::string, std::vector<Func*>>;
size_t g_used = 0;
bool g_init = false;
int g_ctx;  // its address is the handle

// `bytes` at a 256-byte aligned address (as cuMemAlloc's), ending less than 256 bytes before a
// PROT_NONE page, so that most accesses past the end fault. Called under g_lock.
void* alloc(size_t bytes) {
    constexpr size_t PAGE = 4096;
    if (bytes == 0) bytes = 1;
    const size_t pages = (bytes + PAGE - 1) / PAGE * PAGE, start = (bytes + 255) / 256 * 256;
    void* p = mmap(nullptr, pages + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    mprotect(static_cast<uint8_t*>(p) + pages, PAGE, PROT_NONE);
    uint8_t* q = static_cast<uint8_t*>(p) + pages - start;
    g_mappings[(uintptr_t)q] = {p, pages + PAGE};
    return q;
}
void release(void* q) {
    auto it = g_mappings.find((uintptr_t)q);
    munmap(it->second.first, it->second.second);
    g_mappings.erase(it);
}

// The allocation of `m` holding [p, p + bytes), or m.end().
std::map<uintptr_t, size_t>::const_iterator holding(const std::map<uintptr_t, size_t>& m, uintptr_t p,
                                                    size_t bytes) {
    auto it = m.upper_bound(p);
    if (it == m.begin()) return m.end();
    --it;
    return p >= it->first && bytes <= it->second && p - it->first <= it->second - bytes ? it : m.end();
}
bool within(const std::map<uintptr_t, size_t>& m, uintptr_t p, size_t bytes) {
    return holding(m, p, bytes) != m.end();
}

CUresult device_range(CUdeviceptr p, size_t bytes) {
    std::lock_guard<std::mutex> l(g_lock);
    if (bytes == 0) return OK;
    if (!within(g_device, (uintptr_t)p, bytes)) {
        std::fprintf(stderr, "zkntt-emu: %zu bytes at device address 0x%llx are not allocated\n", bytes, p);
        return INVALID_VALUE;
    }
    return OK;
}

// `f` as a function of a loaded module, or null (a handle of an unloaded module is invalid).
Func* live(void* f) {
    auto* fn = static_cast<Func*>(f);
    return fn && fn->module.load() ? fn : nullptr;
}

CUresult launch(Func* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                unsigned shared, void** params, zkntt_emu::dim3 cluster) {
    if (!live(f)) return INVALID_HANDLE;
    if (!params) return INVALID_VALUE;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || (uint64_t)bx * by * bz > 1024 ||
        gy > 65535 || gz > 65535) {
        return INVALID_VALUE;
    }
    if (shared > (unsigned)f->max_dynamic_shared.load()) {
        std::fprintf(stderr, "zkntt-emu: %s launched with %u B of dynamic shared memory, its limit is %d B\n",
                     f->kernel->name, shared, f->max_dynamic_shared.load());
        return INVALID_VALUE;
    }
    const unsigned per = cluster.x * cluster.y * cluster.z;
    if (per > 8 && !(per <= 16 && f->non_portable_clusters)) return NOT_SUPPORTED;
    if (gx % cluster.x || gy % cluster.y || gz % cluster.z) return INVALID_VALUE;
    // A fault ends the launch as "unspecified launch failure" does on a GPU (the context stays
    // usable here).
    return zkntt_emu::launch(f->kernel->call, params, f->kernel->name, {gx, gy, gz}, {bx, by, bz}, shared, cluster)
               ? OK
               : LAUNCH_FAILED;
}

struct LaunchAttribute {
    int id;
    char pad[4];
    union {
        char bytes[64];
        struct {
            unsigned x, y, z;
        } cluster;
    } value;
};
struct LaunchConfig {
    unsigned gx, gy, gz, bx, by, bz, shared;
    void* stream;
    LaunchAttribute* attrs;
    unsigned num_attrs;
};
constexpr int ATTRIBUTE_CLUSTER_DIMENSION = 4;

struct Memcpy2D {
    size_t src_x, src_y;
    int src_type;
    const void* src_host;
    CUdeviceptr src_device;
    void* src_array;
    size_t src_pitch;
    size_t dst_x, dst_y;
    int dst_type;
    void* dst_host;
    CUdeviceptr dst_device;
    void* dst_array;
    size_t dst_pitch;
    size_t width, height;
};
constexpr int MEMORY_HOST = 1, MEMORY_DEVICE = 2;

}  // namespace

#pragma GCC visibility push(default)
extern "C" {

CUresult cuInit(unsigned) {
    g_init = true;
    return OK;
}
CUresult cuDriverGetVersion(int* v) {
    *v = 13000;
    return OK;
}
CUresult cuDeviceGetCount(int* n) {
    *n = 1;
    return OK;
}
CUresult cuDeviceGet(int* d, int ordinal) {
    if (!g_init) return 3;
    if (ordinal != 0) return INVALID_DEVICE;
    *d = 0;
    return OK;
}
CUresult cuDeviceGetName(char* name, int len, int dev) {
    if (dev != 0) return INVALID_DEVICE;
    std::snprintf(name, (size_t)len, "%s", NAME);
    return OK;
}
CUresult cuDeviceTotalMem_v2(size_t* bytes, int dev) {
    if (dev != 0) return INVALID_DEVICE;
    *bytes = TOTAL_MEMORY;
    return OK;
}
CUresult cuDeviceGetAttribute(int* v, int attribute, int dev) {
    if (dev != 0) return INVALID_DEVICE;
    switch (attribute) {
        case 1: *v = 1024; break;                    // max threads per block
        case 2: case 3: *v = 1024; break;            // max block dims x, y
        case 4: *v = 64; break;                      // max block dim z
        case 5: *v = 0x7fffffff; break;              // max grid x
        case 6: case 7: *v = 65535; break;           // max grid y, z
        case 8: *v = STATIC_SHARED_LIMIT; break;     // shared memory per block
        case 10: *v = 32; break;                     // warp size
        case 12: *v = 65536; break;                  // registers per block
        case 13: *v = 1980000; break;                // clock rate (kHz)
        case 16: *v = SMS; break;                    // multiprocessors
        case 38: *v = 50 << 20; break;               // L2 bytes
        case 39: *v = 2048; break;                   // max threads per multiprocessor
        case 41: *v = 1; break;                      // unified addressing
        case 75: *v = 9; break;                      // compute capability
        case 76: *v = 0; break;
        case 81: *v = SHARED_PER_SM; break;          // shared memory per multiprocessor
        case 82: *v = 65536; break;                  // registers per multiprocessor
        case 97: *v = SHARED_OPTIN; break;           // shared memory per block, opt-in
        case 115: *v = 0; break;                     // memory pools: cudarc then allocates synchronously
        case 120: *v = 1; break;                     // cluster launch
        default: *v = 0; break;
    }
    return OK;
}
CUresult cuDevicePrimaryCtxRetain(void** ctx, int dev) {
    if (dev != 0) return INVALID_DEVICE;
    *ctx = &g_ctx;
    return OK;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return OK; }
CUresult cuCtxSetCurrent(void*) { return OK; }
CUresult cuCtxGetCurrent(void** ctx) {
    *ctx = &g_ctx;
    return OK;
}
CUresult cuCtxSynchronize() { return OK; }
CUresult cuCtxGetDevice(int* d) {
    *d = 0;
    return OK;
}

CUresult cuStreamCreate(void** s, unsigned) {
    *s = new int(0);
    return OK;
}
CUresult cuStreamCreateWithPriority(void** s, unsigned, int) { return cuStreamCreate(s, 0); }
CUresult cuStreamDestroy_v2(void* s) {
    delete static_cast<int*>(s);
    return OK;
}
CUresult cuStreamSynchronize(void*) { return OK; }
CUresult cuStreamQuery(void*) { return OK; }
CUresult cuStreamWaitEvent(void*, void*, unsigned) { return OK; }
CUresult cuLaunchHostFunc(void*, void (*fn)(void*), void* data) {
    fn(data);
    return OK;
}

CUresult cuEventCreate(void** e, unsigned) {
    *e = new Event;
    return OK;
}
CUresult cuEventDestroy_v2(void* e) {
    delete static_cast<Event*>(e);
    return OK;
}
CUresult cuEventRecord(void* e, void*) {
    auto* ev = static_cast<Event*>(e);
    ev->at = std::chrono::steady_clock::now();
    ev->recorded = true;
    return OK;
}
CUresult cuEventRecordWithFlags(void* e, void* s, unsigned) { return cuEventRecord(e, s); }
CUresult cuEventSynchronize(void*) { return OK; }
CUresult cuEventQuery(void*) { return OK; }
CUresult cuEventElapsedTime(float* ms, void* a, void* b) {
    auto* x = static_cast<Event*>(a);
    auto* y = static_cast<Event*>(b);
    if (!x->recorded || !y->recorded) return 600;  // not ready
    *ms = std::chrono::duration<float, std::milli>(y->at - x->at).count();
    return OK;
}
CUresult cuEventElapsedTime_v2(float* ms, void* a, void* b) { return cuEventElapsedTime(ms, a, b); }

CUresult cuMemGetInfo_v2(size_t* free_bytes, size_t* total) {
    std::lock_guard<std::mutex> l(g_lock);
    *free_bytes = TOTAL_MEMORY - g_used;
    *total = TOTAL_MEMORY;
    return OK;
}
CUresult cuMemAlloc_v2(CUdeviceptr* p, size_t bytes) {
    std::lock_guard<std::mutex> l(g_lock);
    if (bytes > TOTAL_MEMORY - g_used) return OUT_OF_MEMORY;
    void* q = alloc(bytes);
    if (!q) return OUT_OF_MEMORY;
    // Fresh device memory is not zeroed on a GPU: a pattern, so that reading it shows.
    std::memset(q, 0x5a, bytes);
    g_device[(uintptr_t)q] = bytes;
    g_used += bytes;
    *p = (CUdeviceptr)q;
    return OK;
}
CUresult cuMemAllocAsync(CUdeviceptr* p, size_t bytes, void*) { return cuMemAlloc_v2(p, bytes); }
CUresult cuMemFree_v2(CUdeviceptr p) {
    std::lock_guard<std::mutex> l(g_lock);
    auto it = g_device.find((uintptr_t)p);
    if (it == g_device.end()) return INVALID_VALUE;
    release((void*)p);
    g_used -= it->second;
    g_device.erase(it);
    return OK;
}
CUresult cuMemFreeAsync(CUdeviceptr p, void*) { return cuMemFree_v2(p); }
CUresult cuMemHostAlloc(void** p, size_t bytes, unsigned) {
    std::lock_guard<std::mutex> l(g_lock);
    void* q = alloc(bytes);
    if (!q) return OUT_OF_MEMORY;
    g_pinned[(uintptr_t)q] = bytes;
    *p = q;
    return OK;
}
CUresult cuMemAllocHost_v2(void** p, size_t bytes) { return cuMemHostAlloc(p, bytes, 0); }
CUresult cuMemFreeHost(void* p) {
    std::lock_guard<std::mutex> l(g_lock);
    auto it = g_pinned.find((uintptr_t)p);
    if (it == g_pinned.end()) return INVALID_VALUE;
    release(p);
    g_pinned.erase(it);
    return OK;
}
CUresult cuPointerGetAttribute(void* data, int attribute, CUdeviceptr p) {
    std::lock_guard<std::mutex> l(g_lock);
    const bool dev = within(g_device, (uintptr_t)p, 1), pinned = within(g_pinned, (uintptr_t)p, 1);
    if (!dev && !pinned) return INVALID_VALUE;
    const auto range = holding(dev ? g_device : g_pinned, (uintptr_t)p, 1);
    switch (attribute) {
        case 1: *static_cast<void**>(data) = &g_ctx; return OK;                           // context
        case 2: *static_cast<unsigned*>(data) = dev ? MEMORY_DEVICE : MEMORY_HOST; return OK;
        case 3: case 4: *static_cast<CUdeviceptr*>(data) = p; return OK;                  // device / host pointer
        case 9: *static_cast<int*>(data) = 0; return OK;                                  // device ordinal
        case 11: *static_cast<CUdeviceptr*>(data) = range->first; return OK;              // range start
        case 12: *static_cast<size_t*>(data) = range->second; return OK;                  // range size
        default: return INVALID_VALUE;
    }
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void* src, size_t bytes) {
    if (CUresult r = device_range(dst, bytes)) return r;
    std::memcpy((void*)dst, src, bytes);
    return OK;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void* src, size_t bytes, void*) {
    return cuMemcpyHtoD_v2(dst, src, bytes);
}
CUresult cuMemcpyDtoH_v2(void* dst, CUdeviceptr src, size_t bytes) {
    if (CUresult r = device_range(src, bytes)) return r;
    std::memcpy(dst, (const void*)src, bytes);
    return OK;
}
CUresult cuMemcpyDtoHAsync_v2(void* dst, CUdeviceptr src, size_t bytes, void*) {
    return cuMemcpyDtoH_v2(dst, src, bytes);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    if (CUresult r = device_range(src, bytes)) return r;
    if (CUresult r = device_range(dst, bytes)) return r;
    std::memmove((void*)dst, (const void*)src, bytes);
    return OK;
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void*) {
    return cuMemcpyDtoD_v2(dst, src, bytes);
}
CUresult cuMemcpy2DAsync_v2(const Memcpy2D* c, void*) {
    const auto known = [](int t) { return t == MEMORY_HOST || t == MEMORY_DEVICE; };
    if (!known(c->src_type) || !known(c->dst_type)) return NOT_SUPPORTED;
    if (c->height > 1 && (c->width > c->src_pitch || c->width > c->dst_pitch)) return INVALID_VALUE;
    const uint8_t* src = c->src_type == MEMORY_DEVICE ? (const uint8_t*)c->src_device : (const uint8_t*)c->src_host;
    uint8_t* dst = c->dst_type == MEMORY_DEVICE ? (uint8_t*)c->dst_device : (uint8_t*)c->dst_host;
    src += c->src_y * c->src_pitch + c->src_x;
    dst += c->dst_y * c->dst_pitch + c->dst_x;
    if (c->height > 0) {
        const size_t src_span = (c->height - 1) * c->src_pitch + c->width;
        const size_t dst_span = (c->height - 1) * c->dst_pitch + c->width;
        if (c->src_type == MEMORY_DEVICE)
            if (CUresult r = device_range((CUdeviceptr)src, src_span)) return r;
        if (c->dst_type == MEMORY_DEVICE)
            if (CUresult r = device_range((CUdeviceptr)dst, dst_span)) return r;
    }
    for (size_t r = 0; r < c->height; r++) std::memcpy(dst + r * c->dst_pitch, src + r * c->src_pitch, c->width);
    return OK;
}
CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t n) {
    if (CUresult r = device_range(p, n)) return r;
    std::memset((void*)p, v, n);
    return OK;
}
CUresult cuMemsetD8Async(CUdeviceptr p, unsigned char v, size_t n, void*) { return cuMemsetD8_v2(p, v, n); }

CUresult cuModuleLoadData(void** module, const void*) {
    std::lock_guard<std::mutex> l(g_lock);
    auto* m = new Module;
    g_modules.insert(m);
    *module = m;
    return OK;
}
CUresult cuModuleUnload(void* module) {
    std::lock_guard<std::mutex> l(g_lock);
    auto* m = static_cast<Module*>(module);
    if (!g_modules.erase(m)) return INVALID_HANDLE;
    for (auto& [name, f] : m->funcs) {
        f->module = nullptr;
        f->max_dynamic_shared = STATIC_SHARED_LIMIT;
        f->non_portable_clusters = 0;
        g_unloaded_funcs[name].push_back(f);
    }
    delete m;
    return OK;
}
CUresult cuModuleGetFunction(void** f, void* module, const char* name) {
    std::lock_guard<std::mutex> l(g_lock);
    auto* m = static_cast<Module*>(module);
    if (!g_modules.count(m)) return INVALID_HANDLE;
    auto it = m->funcs.find(name);
    if (it == m->funcs.end()) {
        const zkntt_emu::KernelEntry* k = zkntt_emu::find_kernel(name);
        if (!k) return NOT_FOUND;
        Func* fn;
        auto& pool = g_unloaded_funcs[name];
        if (pool.empty()) {
            fn = new Func{k, {m}};
        } else {
            fn = pool.back();
            pool.pop_back();
            fn->module = m;
        }
        it = m->funcs.emplace(name, fn).first;
    }
    *f = it->second;
    return OK;
}
CUresult cuFuncSetAttribute(void* f, int attribute, int value) {
    Func* fn = live(f);
    if (!fn) return INVALID_HANDLE;
    switch (attribute) {
        case 8:
            if (value < 0 || value > SHARED_OPTIN) return INVALID_VALUE;
            fn->max_dynamic_shared = value;
            return OK;
        case 14: fn->non_portable_clusters = value; return OK;
        default: return OK;
    }
}
CUresult cuFuncGetAttribute(int* v, int attribute, void* f) {
    Func* fn = live(f);
    if (!fn) return INVALID_HANDLE;
    switch (attribute) {
        case 0: *v = 1024; return OK;  // max threads per block (launch bounds are not seen here)
        case 4: *v = 64; return OK;    // registers
        case 8: *v = fn->max_dynamic_shared; return OK;
        default: *v = 0; return OK;
    }
}
CUresult cuFuncSetCacheConfig(void*, int) { return OK; }

CUresult cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void*, void** params, void** extra) {
    if (extra) return NOT_SUPPORTED;
    return launch(static_cast<Func*>(f), gx, gy, gz, bx, by, bz, shared, params, {1, 1, 1});
}
CUresult cuLaunchKernelEx(const LaunchConfig* c, void* f, void** params, void** extra) {
    if (extra) return NOT_SUPPORTED;
    zkntt_emu::dim3 cluster{1, 1, 1};
    for (unsigned i = 0; i < c->num_attrs; i++) {
        if (c->attrs[i].id == ATTRIBUTE_CLUSTER_DIMENSION) {
            const auto& d = c->attrs[i].value.cluster;
            cluster = {d.x, d.y, d.z};
            if (!d.x || !d.y || !d.z) return INVALID_VALUE;
        }
    }
    return launch(static_cast<Func*>(f), c->gx, c->gy, c->gz, c->bx, c->by, c->bz, c->shared, params, cluster);
}
// Blocks of `shared` bytes an SM holds, by shared memory alone (1 KiB reserved a block).
static int blocks_per_sm(size_t shared) { return shared > (size_t)SHARED_OPTIN ? 0 : std::min(32, SHARED_PER_SM / (int)(shared + 1024)); }
CUresult cuOccupancyMaxActiveClusters(int* n, void* f, const LaunchConfig* c) {
    if (!live(f)) return INVALID_HANDLE;
    unsigned per = 1;
    for (unsigned i = 0; i < c->num_attrs; i++)
        if (c->attrs[i].id == ATTRIBUTE_CLUSTER_DIMENSION)
            per = c->attrs[i].value.cluster.x * c->attrs[i].value.cluster.y * c->attrs[i].value.cluster.z;
    if (per > 8 && !(per <= 16 && static_cast<Func*>(f)->non_portable_clusters.load())) return INVALID_VALUE;
    *n = SMS * blocks_per_sm(c->shared) / (int)per;
    return OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, void*, int, size_t shared) {
    *n = blocks_per_sm(shared);
    return OK;
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, void* f, int threads, size_t shared, unsigned) {
    return cuOccupancyMaxActiveBlocksPerMultiprocessor(n, f, threads, shared);
}

CUresult cuGetErrorName(CUresult e, const char** s) {
    switch (e) {
        case OK: *s = "CUDA_SUCCESS"; break;
        case INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
        case OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
        case NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
        case INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; break;
        case INVALID_HANDLE: *s = "CUDA_ERROR_INVALID_HANDLE"; break;
        case NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
        case LAUNCH_FAILED: *s = "CUDA_ERROR_LAUNCH_FAILED"; break;
        case NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; break;
        default: *s = "CUDA_ERROR_UNKNOWN"; break;
    }
    return OK;
}
CUresult cuGetErrorString(CUresult e, const char** s) { return cuGetErrorName(e, s); }

}  // extern "C"
#pragma GCC visibility pop
