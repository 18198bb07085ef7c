//! Kernel parameters, mirroring `cuda/ntt/ntt_common.cuh` field for field.

//! The flag bits are `zkntt_core::plan::flags`, set by the plan's launch table.

use cudarc::driver::DeviceRepr;

/// x^e = hi[e >> lo_bits] * lo[e & (2^lo_bits - 1)].
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PowerTable {
    pub lo: u64,
    pub hi: u64,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NttStageParams {
    pub data: u64,
    pub elem_stride: u64,
    pub batch_stride: u64,
    pub sub_twiddles: u64,
    pub omega: PowerTable,
    pub pre: PowerTable,
    pub post: PowerTable,
    pub post_const: u64,
    pub log_n: u32,
    pub log_p: u32,
    /// Middle stage: log2 Q. Column stage: log2 of the sub-transforms whose columns it works down
    /// (`Launch::log_m`; a union with `log_q` in the CUDA struct).
    pub log_q: u32,
    pub log_cols: u32,
    pub lo_bits: u32,
    pub flags: u32,
    pub mid_twiddles: u64,
    /// Column stage: the first column of this launch (column ranges of the host pipeline).
    pub col_base: u64,
    /// Natural-order column stage: where the stores go (transform 0), set for every launch: `data`
    /// (in place), or a two-pass transform's scratch and back (`flags::SCRATCH_OUT` / `SCRATCH_IN`).
    pub out: u64,
}

// SAFETY: plain old data with the C layout the kernels declare (checked by the size assertion).
unsafe impl DeviceRepr for NttStageParams {}
const _: () = assert!(std::mem::size_of::<NttStageParams>() == 136);
