// ptxas study of ntt_stage2_warp's registers (no GPU needed; not part of the fatbin). One kernel
// per shape of the dispatch (log Q = 1..6: stage2_warp<F, LOG_Q, LOG_EL, PAIRS>) and the symbols'
// bodies (the dispatch), BN254 Fr and BLS12-381 Fr. `run.sh` compiles it (its default STUDY_SRC)
// at several budgets: STUDY_REGS unset keeps the symbols' own bounds (__launch_bounds__(128, 4)
// before this study; ZKNTT_STAGE2_WARP_MIN_BLOCKS where defined), STUDY_REGS=N puts __maxnreg__(N)
// on every kernel, STUDY_LB=B __launch_bounds__(128, B) (the launch's 128 threads: plan::THREADS).
#define ZKNTT_NO_KERNEL_SYMBOLS
#include "ntt/stage2_warp.cu"

#if defined(STUDY_REGS)
#define STUDY_S2W_BOUNDS __maxnreg__(STUDY_REGS)
#elif defined(STUDY_LB)
#define STUDY_S2W_BOUNDS __launch_bounds__(128, STUDY_LB)
#elif defined(ZKNTT_STAGE2_WARP_MIN_BLOCKS)
#define STUDY_S2W_BOUNDS __launch_bounds__(128, ZKNTT_STAGE2_WARP_MIN_BLOCKS)
#else
#define STUDY_S2W_BOUNDS __launch_bounds__(128, 4)
#endif

using zkntt::bls12_381_fr;
using zkntt::bn254_fr;
using zkntt::ntt::stage2_warp;

#define STUDY_S2W(NAME, ...) \
    extern "C" __global__ void STUDY_S2W_BOUNDS NAME(const zkntt::ntt::NttStageParams p) { __VA_ARGS__(p); }

// The shapes as stage2_warp_dispatch takes them (log Q, log elements a lane, tile pairs a warp).
STUDY_S2W(s2w_bn_q1, stage2_warp<bn254_fr, 1, 1, 2>)
STUDY_S2W(s2w_bn_q2, stage2_warp<bn254_fr, 2, 2, 1>)
STUDY_S2W(s2w_bn_q3, stage2_warp<bn254_fr, 3, 3, 1>)  // the launched one (Auto: BN254, Q = 8)
STUDY_S2W(s2w_bn_q4, stage2_warp<bn254_fr, 4, 2, 1>)
STUDY_S2W(s2w_bn_q5, stage2_warp<bn254_fr, 5, 3, 1>)
STUDY_S2W(s2w_bn_q6, stage2_warp<bn254_fr, 6, 2, 1>)
STUDY_S2W(s2w_bn_any, zkntt::ntt::stage2_warp_dispatch<bn254_fr>)  // ntt_stage2_warp_bn254_fr's body
STUDY_S2W(s2w_bls_q3, stage2_warp<bls12_381_fr, 3, 3, 1>)
STUDY_S2W(s2w_bls_q5, stage2_warp<bls12_381_fr, 5, 3, 1>)
STUDY_S2W(s2w_bls_any, zkntt::ntt::stage2_warp_dispatch<bls12_381_fr>)  // ntt_stage2_warp_bls12_381_fr's body
