// The host shim's twin (cuda/ntt/twiddles_prefix_product.host.cu) for the emulated build:
// out[i] = c * x^i, one product after another. The scan's order of products does not matter:
// Montgomery products of canonical values are exact and canonical.
#include <cstdio>
#include <cstdlib>

#include "field/bls12_381_fr.cuh"
#include "field/bn254_fr.cuh"

namespace zkntt_emu {
// mont.cuh's bound checks, here outside any kernel.
void trap() {
    std::fprintf(stderr, "zkntt-emu: __trap() in the host shim\n");
    std::abort();
}
}  // namespace zkntt_emu

namespace {
// c and x are the caller's elements (ark-ff's, 8-byte aligned): copied, not dereferenced as F,
// which is 16-byte aligned.
template <class F>
int powers(F* out, const void* c_host, const void* x_host, uint64_t n) {
    if (n == 0) return 0;
    F c, x;
    __builtin_memcpy(&c, c_host, sizeof(F));
    __builtin_memcpy(&x, x_host, sizeof(F));
    out[0] = c;
    for (uint64_t i = 1; i < n; i++) out[i] = zkntt::mul<typename F::params>(out[i - 1], x);
    return 0;
}
}  // namespace

#define ZKNTT_POWERS(FIELD)                                                                        \
    extern "C" __attribute__((visibility("default"))) int zkntt_powers_##FIELD(                   \
        void* out, const void* c_host, const void* x_host, uint64_t n, void*) {                     \
        return powers<zkntt::FIELD>(static_cast<zkntt::FIELD*>(out), c_host, x_host, n);            \
    }

ZKNTT_POWERS(bn254_fr)
ZKNTT_POWERS(bls12_381_fr)

extern "C" __attribute__((visibility("default"))) const char* zkntt_host_last_error() { return ""; }
