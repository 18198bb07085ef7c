// The emulator's threads: every CUDA thread of a block (of a cluster, when the launch has
// clusters) is a fiber with its own stack on the calling OS thread. A fiber runs until it waits
// at a barrier or a warp shuffle, then the next one runs (round robin), so a thread that reads
// what another has not written yet, with no barrier between, reads stale memory, as on a GPU.
// Blocks (clusters) run one after the other, in blockIdx order; the fibers' order flips from round
// to round and cluster to cluster, so a read of another thread's write without a barrier between
// shows whichever thread runs first.
#include "runtime.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cfenv>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

// Saves the callee-saved registers and the FP control words on the current stack, stores the
// stack pointer into *from, switches to `to` and restores what was saved there (System V x86-64).
extern "C" void zkntt_emu_switch(void** from, void* to);
asm(R"(
    .text
    .globl zkntt_emu_switch
    .type zkntt_emu_switch,@function
zkntt_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size zkntt_emu_switch, .-zkntt_emu_switch
    .section .note.GNU-stack,"",@progbits
    .text
)");

namespace zkntt_emu {

namespace {

constexpr size_t STACK_BYTES = 256 << 10;

struct Block;
struct Cluster;

struct Fiber {
    void* sp = nullptr;
    char* stack = nullptr;  // lowest address (a guard page), STACK_BYTES long
    Block* block = nullptr;
    dim3 tid;
    uint32_t linear = 0;  // thread index within the block
    bool done = false;
    uint64_t barrier_gen = 0;  // the block or cluster barrier generation it arrived at
};

// A barrier over a changing number of threads: those that exited count as arrived.
struct Barrier {
    uint32_t expected = 0;
    uint32_t arrived = 0;
    uint64_t gen = 0;
    uint64_t arrive() {
        const uint64_t g = gen;
        if (++arrived == expected) release();
        return g;
    }
    void leave() {
        expected--;
        if (arrived > 0 && arrived == expected) release();
    }
    void release() {
        arrived = 0;
        gen++;
    }
};

struct Warp {
    Barrier bar;
    uint32_t buf[2][32];
    uint32_t wide[2][32][8];  // warp_gather's, by generation as buf
};

struct Block {
    dim3 idx;
    uint32_t rank = 0;  // in its cluster
    uint8_t* arena = nullptr;   // its static shared arrays (STATIC_MAX bytes), then:
    uint8_t* shared = nullptr;  // its dynamic shared memory, a guard page right after it
    size_t shared_bytes = 0;
    std::vector<std::pair<const void*, uint8_t*>> statics;  // each declaration's array
    size_t static_used = 0;
    std::map<uint32_t, Barrier> named;  // bar.sync's barriers by id
    Barrier bar;
    std::vector<Warp> warps;
    Cluster* cluster = nullptr;  // every block has one (a lone block: a cluster of one)
    uint32_t live = 0;           // its threads that have not exited
};

struct Cluster {
    std::vector<Block> blocks;
    Barrier bar;
};

struct Launch {
    Kernel kernel;
    void** params;
    dim3 grid, block;
    const char* name;
};

Launch* g_launch = nullptr;
Fiber* g_cur = nullptr;
void* g_scheduler_sp = nullptr;
uint64_t g_progress = 0;
// Never destroyed: threads of the process may still launch while it exits.
std::vector<char*>& g_stacks = *new std::vector<char*>;  // kept between launches
std::mutex& g_launch_lock = *new std::mutex;

// Shared memory regions, one per block rank of a cluster, kept between launches: a buffer ends
// where a PROT_NONE page starts, so an access past its end faults.
struct Region {
    uint8_t* base = nullptr;
    size_t usable = 0;  // bytes before the guard page
};
std::vector<Region>& g_regions = *new std::vector<Region>;
constexpr uint8_t FRESH = 0xa5, EXITED = 0xdd;  // fill of a block's shared memory before / after it
constexpr size_t STATIC_MAX = 48 << 10;           // CUDA's limit on static shared memory a block

bool g_failed = false;  // the running launch hit a fault: its fibers are abandoned

// A fault in a kernel (__trap, a deadlock, an access the emulator refuses): says where, then ends
// the launch, which returns an error as a GPU's launch does. Outside a launch: aborts.
// One line on stderr: what, and the kernel, block and thread of fiber `f` (none: zeros).
void say(const char* what, const Fiber* f) {
    std::fprintf(stderr, "zkntt-emu: %s (kernel %s, block (%u,%u,%u), thread (%u,%u,%u))\n", what,
                 g_launch ? g_launch->name : "?", f ? f->block->idx.x : 0, f ? f->block->idx.y : 0,
                 f ? f->block->idx.z : 0, f ? f->tid.x : 0, f ? f->tid.y : 0, f ? f->tid.z : 0);
}

[[noreturn]] void die(const char* what) {
    say(what, g_cur);
    if (g_launch && g_cur) {
        g_failed = true;
        zkntt_emu_switch(&g_cur->sp, g_scheduler_sp);
    }
    std::abort();
}

Fiber& cur() {
    if (!g_cur) die("a device function called outside a kernel");
    return *g_cur;
}

void yield() { zkntt_emu_switch(&g_cur->sp, g_scheduler_sp); }

// Waits until `bar` has moved past generation `g`.
void wait_gen(const Barrier& bar, uint64_t g) {
    while (bar.gen == g) yield();
}

Warp& warp_of(Fiber& f) { return f.block->warps[f.linear / 32]; }

void fiber_main() {
    g_launch->kernel(g_launch->params);
    Fiber& f = cur();
    // A full-mask shuffle or __syncwarp that a lane never reaches is undefined on a GPU.
    if (warp_of(f).bar.arrived > 0) die("a lane exited while its warp waits at a shuffle or __syncwarp");
    f.done = true;
    g_progress++;
    f.block->bar.leave();
    warp_of(f).bar.leave();
    f.block->cluster->bar.leave();
    if (--f.block->live == 0) {
        std::memset(f.block->arena, EXITED, f.block->static_used);
        std::memset(f.block->shared, EXITED, f.block->shared_bytes);
    }
    zkntt_emu_switch(&f.sp, g_scheduler_sp);
    die("a finished fiber resumed");
}

// Block `rank`'s shared memory: STATIC_MAX bytes of static arrays, then `bytes` of dynamic
// shared memory (returned), 16-byte aligned, at most 15 bytes before the guard page.
uint8_t* shared_region(uint32_t rank, size_t bytes) {
    constexpr size_t PAGE = 4096;
    const size_t start = (bytes + 15) / 16 * 16, need = (STATIC_MAX + start + PAGE - 1) / PAGE * PAGE;
    if (g_regions.size() <= rank) g_regions.resize(rank + 1);
    Region& r = g_regions[rank];
    if (r.usable < need) {
        if (r.base) munmap(r.base, r.usable + PAGE);
        void* p = mmap(nullptr, need + PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) die("no memory for a block's shared memory");
        r.base = static_cast<uint8_t*>(p);
        r.usable = need;
        mprotect(r.base + need, PAGE, PROT_NONE);
    }
    return r.base + r.usable - start;  // 16-byte aligned, at most 15 bytes before the guard
}

char* stack(size_t i) {
    while (g_stacks.size() <= i) {
        void* p = mmap(nullptr, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        if (p == MAP_FAILED) die("no memory for a fiber's stack");
        mprotect(p, 4096, PROT_NONE);  // overflow faults instead of corrupting the next stack
        g_stacks.push_back(static_cast<char*>(p));
    }
    return g_stacks[i];
}

// A fresh fiber's stack as `zkntt_emu_switch` leaves a suspended one: FP words, six registers,
// the return address (fiber_main).
void prepare(Fiber& f) {
    uint64_t* top = reinterpret_cast<uint64_t*>(f.stack + STACK_BYTES);
    top -= 2;  // keeps rsp = 8 mod 16 at fiber_main's entry, as after a call
    *--top = 0;  // fiber_main never returns
    *--top = reinterpret_cast<uint64_t>(&fiber_main);
    for (int i = 0; i < 6; i++) *--top = 0;
    uint32_t words[2] = {0, 0};
    asm volatile("stmxcsr %0" : "=m"(words[0]));
    asm volatile("fnstcw %0" : "=m"(words[1]));
    *--top = (uint64_t)words[1] << 32 | words[0];
    f.sp = top;
}

// Runs the cluster's threads to their end; round k takes the fibers in reverse order when k + flip
// is odd.
void run_cluster(Cluster& c, std::vector<Fiber>& fibers, uint32_t flip) {
    const uint32_t threads = g_launch->block.x * g_launch->block.y * g_launch->block.z;
    fibers.clear();
    fibers.resize(c.blocks.size() * threads);
    c.bar = Barrier{};
    c.bar.expected = (uint32_t)fibers.size();
    size_t k = 0;
    for (Block& b : c.blocks) {
        b.cluster = &c;
        b.live = threads;
        b.bar = Barrier{};
        b.bar.expected = threads;
        b.warps.assign((threads + 31) / 32, Warp{});
        for (uint32_t w = 0; w < b.warps.size(); w++) b.warps[w].bar.expected = std::min(32u, threads - 32 * w);
        for (uint32_t t = 0; t < threads; t++, k++) {
            Fiber& f = fibers[k];
            f.block = &b;
            f.linear = t;
            f.tid = dim3{t % g_launch->block.x, t / g_launch->block.x % g_launch->block.y,
                         t / (g_launch->block.x * g_launch->block.y)};
            f.stack = stack(k);
            prepare(f);
        }
    }
    size_t live = fibers.size();
    uint64_t seen = g_progress, idle_rounds = 0;
    const size_t n = fibers.size();
    for (uint32_t round = flip; live > 0; round++) {
        live = 0;
        const bool reverse = round & 1;
        for (size_t i = 0; i < n; i++) {
            Fiber& f = fibers[reverse ? n - 1 - i : i];
            if (f.done) continue;
            g_cur = &f;
            zkntt_emu_switch(&g_scheduler_sp, f.sp);
            g_cur = nullptr;
            if (g_failed) return;
            live += !f.done;
        }
        if (g_progress != seen) {
            seen = g_progress;
            idle_rounds = 0;
        } else if (live > 0 && ++idle_rounds > 2) {
            const Fiber* waiting = nullptr;
            for (const Fiber& f : fibers)
                if (!f.done) waiting = &f;
            say("every thread left waits at a barrier or shuffle that can't complete (deadlock)", waiting);
            g_failed = true;
            return;
        }
    }
}

}  // namespace

bool launch(Kernel kernel, void** params, const char* name, dim3 grid, dim3 block, uint32_t shared_bytes,
            dim3 cluster) {
    std::lock_guard<std::mutex> lock(g_launch_lock);
    Launch l{kernel, params, grid, block, name};
    g_launch = &l;
    g_failed = false;
    std::vector<Fiber> fibers;
    Cluster c;
    uint32_t flip = 0;  // clusters start in alternate orders
    const uint32_t per = cluster.x * cluster.y * cluster.z;
    for (uint32_t z = 0; z < grid.z; z += cluster.z)
        for (uint32_t y = 0; y < grid.y; y += cluster.y)
            for (uint32_t x = 0; x < grid.x; x += cluster.x) {
                c.blocks.clear();
                c.blocks.resize(per);
                uint32_t r = 0;
                for (uint32_t dz = 0; dz < cluster.z; dz++)
                    for (uint32_t dy = 0; dy < cluster.y; dy++)
                        for (uint32_t dx = 0; dx < cluster.x; dx++, r++) {
                            Block& b = c.blocks[r];
                            b.idx = dim3{x + dx, y + dy, z + dz};
                            b.rank = r;
                            // Fresh shared memory holds what the last block left on a GPU: filled
                            // with a pattern here so that a read before a write shows.
                            b.shared = shared_region(r, shared_bytes);
                            b.shared_bytes = shared_bytes;
                            b.arena = b.shared - STATIC_MAX;
                            b.statics.clear();
                            b.static_used = 0;
                            b.named.clear();
                            std::memset(b.shared, FRESH, shared_bytes);
                        }
                run_cluster(c, fibers, flip++);
                if (g_failed) {
                    g_launch = nullptr;
                    return false;
                }
            }
    g_launch = nullptr;
    return true;
}

const dim3& thread_idx() { return cur().tid; }
const dim3& block_idx() { return cur().block->idx; }
const dim3& block_dim() {
    cur();
    return g_launch->block;
}
const dim3& grid_dim() {
    cur();
    return g_launch->grid;
}
void* dynamic_shared() { return cur().block->shared; }

void* static_shared(const void* key, size_t bytes) {
    Block& b = *cur().block;
    for (const auto& s : b.statics)
        if (s.first == key) return s.second;
    const size_t at = (b.static_used + 15) / 16 * 16;
    if (at + bytes > STATIC_MAX) die("static shared memory over 48 KiB");
    uint8_t* p = b.arena + at;
    std::memset(p, FRESH, bytes);
    b.statics.emplace_back(key, p);
    b.static_used = at + bytes;
    return p;
}

void named_barrier(uint32_t id, uint32_t count) {
    Fiber& f = cur();
    if (id > 15 || count == 0 || count % 32) die("bar.sync: an id over 15 or a count not a multiple of 32");
    Barrier& bar = f.block->named[id];
    if (bar.arrived == 0) bar.expected = count;
    if (bar.expected != count) die("bar.sync: threads at one barrier with different counts");
    g_progress++;
    const uint64_t g = bar.arrive();
    wait_gen(bar, g);
}

// Offsets in a block's shared window: its static arrays from 0, its dynamic memory after them.
uint32_t shared_offset(const void* p) {
    const Block& b = *cur().block;
    const uint8_t* q = static_cast<const uint8_t*>(p);
    if (q < b.arena || q > b.shared + b.shared_bytes) die("a generic address taken as shared is not in shared memory");
    return (uint32_t)(q - b.arena);
}

void sync_threads() {
    Fiber& f = cur();
    g_progress++;
    const uint64_t g = f.block->bar.arrive();
    wait_gen(f.block->bar, g);
}

void sync_warp(uint32_t mask) {
    Fiber& f = cur();
    if (mask != 0xffffffffu) die("__syncwarp with a partial mask is not emulated");
    Warp& w = warp_of(f);
    g_progress++;
    const uint64_t g = w.bar.arrive();
    wait_gen(w.bar, g);
}

namespace {
uint32_t exchange(uint32_t mask, uint32_t v, uint32_t src, int width) {
    Fiber& f = cur();
    Warp& w = warp_of(f);
    if (mask != 0xffffffffu || w.bar.expected != 32) die("a shuffle over a partial warp is not emulated");
    if (width <= 0 || width > 32 || (width & (width - 1))) die("a shuffle width that is not a power of two up to 32");
    const uint32_t lane = f.linear % 32;
    // A lane of a later group of `width` lanes gives the caller its own value (CUDA's rule;
    // earlier groups may be read).
    if (src >= (lane & ~(uint32_t)(width - 1)) + (uint32_t)width) src = lane;
    const uint64_t g = w.bar.gen;
    w.buf[g & 1][lane] = v;
    g_progress++;
    w.bar.arrive();
    wait_gen(w.bar, g);
    return w.buf[g & 1][src];
}
}  // namespace

uint32_t shfl_xor(uint32_t mask, uint32_t v, uint32_t lane_mask, int width) {
    const uint32_t lane = cur().linear % 32;
    return exchange(mask, v, lane ^ lane_mask, width);
}

void warp_gather(const uint32_t* mine, uint32_t n, uint32_t* all) {
    Fiber& f = cur();
    Warp& w = warp_of(f);
    if (w.bar.expected != 32) die("a warp-wide operation (mma) over a partial warp is not emulated");
    if (n > 8) die("warp_gather: more than 8 words a lane");
    const uint32_t lane = f.linear % 32;
    const uint64_t g = w.bar.gen;
    std::memcpy(w.wide[g & 1][lane], mine, 4 * n);
    g_progress++;
    w.bar.arrive();
    wait_gen(w.bar, g);
    for (uint32_t l = 0; l < 32; l++) std::memcpy(all + l * n, w.wide[g & 1][l], 4 * n);
}

namespace {
double half_value(uint32_t word, uint32_t high) {
    const uint16_t bits = (uint16_t)(word >> (16 * high));
    _Float16 h;
    std::memcpy(&h, &bits, 2);
    return (double)h;
}
}  // namespace

void mma_m16n8k16_f16_f32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    const uint32_t mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
    uint32_t all[32 * 6];
    warp_gather(mine, 6, all);
    double A[16][16], B[16][8];
    for (uint32_t l = 0; l < 32; l++) {
        const uint32_t g = l / 4, q = l % 4, *f = all + 6 * l;
        for (uint32_t j = 0; j < 4; j++)
            for (uint32_t h = 0; h < 2; h++) A[g + 8 * (j & 1)][2 * q + 8 * (j >> 1) + h] = half_value(f[j], h);
        for (uint32_t j = 0; j < 2; j++)
            for (uint32_t h = 0; h < 2; h++) B[2 * q + 8 * j + h][g] = half_value(f[4 + j], h);
    }
    const uint32_t lane = cur().linear % 32, g = lane / 4, q = lane % 4;
    for (uint32_t e = 0; e < 4; e++) {
        const uint32_t row = g + 8 * (e >> 1), col = 2 * q + (e & 1);
        double sum = 0;
        for (uint32_t k = 0; k < 16; k++) sum += A[row][k] * B[k][col];
        d[e] = (float)(sum + d[e]);
    }
}

void trap() { die("__trap()"); }

uint32_t cluster_rank() { return cur().block->rank; }

// The cluster barrier is its own (a block's __syncthreads between arrive and wait does not count).
void cluster_arrive() {
    Fiber& f = cur();
    f.barrier_gen = f.block->cluster->bar.arrive();
    g_progress++;
}

void cluster_wait() {
    Fiber& f = cur();
    wait_gen(f.block->cluster->bar, f.barrier_gen);
}

// A shared::cluster address: the block's rank + 1 in the top byte, the offset below (top byte 0:
// the running block's own shared memory, as a plain shared address is on sm_90).
uint32_t cluster_remote(uint32_t local, uint32_t block) {
    Fiber& f = cur();
    if (block >= f.block->cluster->blocks.size()) die("mapa: no such block in the cluster");
    if (local >= (1u << 24)) die("mapa: not a shared-memory offset");
    return (block + 1) << 24 | local;
}

namespace {
uint8_t* cluster_address(uint32_t addr) {
    Fiber& f = cur();
    Cluster& c = *f.block->cluster;
    const uint32_t top = addr >> 24, off = addr & 0xffffff;
    Block* b = top == 0 ? f.block : (top - 1 < c.blocks.size() ? &c.blocks[top - 1] : nullptr);
    if (!b || off % 4 || off + 4 > STATIC_MAX + b->shared_bytes)
        die("a shared::cluster access outside the cluster's shared memory");
    if (b != f.block) {
        // Undefined on a GPU: before the block is known to have started, after it has exited.
        if (c.bar.gen == 0) die("another block's shared memory used before a cluster barrier");
        if (b->live == 0) die("an exited block's shared memory used");
    }
    return b->arena + off;
}
}  // namespace

uint32_t cluster_load(uint32_t addr) {
    uint32_t v;
    std::memcpy(&v, cluster_address(addr), 4);
    return v;
}

void cluster_store(uint32_t addr, uint32_t v) { std::memcpy(cluster_address(addr), &v, 4); }

}  // namespace zkntt_emu

double __fma_rz(double a, double b, double c) {
    const int mode = std::fegetround();
    std::fesetround(FE_TOWARDZERO);
    volatile double r = std::fma(a, b, c);
    std::fesetround(mode);
    return r;
}
