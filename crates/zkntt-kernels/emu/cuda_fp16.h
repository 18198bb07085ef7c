// The part of CUDA's cuda_fp16.h that the kernels use (cuda/small/fft_tc.cu), for the CPU
// emulator (README.md here): the emulator's include path puts this file where nvcc's header is.
// A half is the host compiler's _Float16 (IEEE binary16); every operation rounds once to nearest
// even, as the GPU's HMUL2/HFMA2 do.
#pragma once
#include <cstdint>

struct __half {
    uint16_t bits;
};
struct alignas(4) __half2 {
    __half x, y;  // x in the low 16 bits of the register
};

namespace zkntt_emu {
inline float half_to_float(__half h) {
    _Float16 f;
    __builtin_memcpy(&f, &h.bits, 2);
    return (float)f;
}
// Rounded to nearest even from a double: a product of two halves is exact there, and so is a
// product plus a half unless their exponents lie some 30 apart (then it rounds twice).
inline __half half_from_double(double d) {
    const _Float16 f = (_Float16)d;
    __half h;
    __builtin_memcpy(&h.bits, &f, 2);
    return h;
}
}  // namespace zkntt_emu

inline __half __float2half_rn(float x) { return zkntt_emu::half_from_double(x); }
inline float __half2float(__half h) { return zkntt_emu::half_to_float(h); }
inline unsigned short __half_as_ushort(__half h) { return h.bits; }

inline __half2 __hmul2(__half2 a, __half2 b) {
    using zkntt_emu::half_from_double, zkntt_emu::half_to_float;
    return __half2{half_from_double((double)half_to_float(a.x) * half_to_float(b.x)),
                   half_from_double((double)half_to_float(a.y) * half_to_float(b.y))};
}
// a b + c with one rounding.
inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) {
    using zkntt_emu::half_from_double, zkntt_emu::half_to_float;
    return __half2{
        half_from_double((double)half_to_float(a.x) * half_to_float(b.x) + half_to_float(c.x)),
        half_from_double((double)half_to_float(a.y) * half_to_float(b.y) + half_to_float(c.y))};
}
// The sign bits flipped (NaNs included), as HNEG2.
inline __half2 __hneg2(__half2 a) {
    a.x.bits ^= 0x8000;
    a.y.bits ^= 0x8000;
    return a;
}
