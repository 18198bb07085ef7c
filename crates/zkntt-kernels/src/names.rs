//! The symbol of every big-field kernel the runtime launches, one constant per kernel and field.
//! `build.rs` includes this file and fails the build when a name here is not a kernel of the
//! fatbin, so a misspelt or renamed kernel is a build error, not a run-time one on a GPU.
//! (The small-word kernels' names are checked against [`crate::SYMBOLS`] by zkntt-small's tests.)

/// One kernel's symbol per big field with kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PerField {
    pub bn254_fr: &'static str,
    pub bls12_381_fr: &'static str,
}

impl PerField {
    /// Both fields' symbols.
    pub const fn all(&self) -> [&'static str; 2] {
        [self.bn254_fr, self.bls12_381_fr]
    }
}

/// `cuda/ntt/`: the NTT engine's launches (see `zkntt_core::plan::Kernel`).
pub mod ntt {
    use super::PerField;

    /// `cuda/ntt/column.cu`: P-point NTTs down the columns, in shared memory.
    pub const COLUMN: PerField = PerField {
        bn254_fr: "ntt_column_bn254_fr",
        bls12_381_fr: "ntt_column_bls12_381_fr",
    };
    /// ... the second launch of a two-pass natural-order transform (flag SCRATCH_IN): row i of
    /// column c read at c*S + i of the scratch (transposed).
    pub const COLUMN_T: PerField = PerField {
        bn254_fr: "ntt_column_t_bn254_fr",
        bls12_381_fr: "ntt_column_t_bls12_381_fr",
    };
    /// ... the same with sub-transforms and bit-reversed rows (the NR and RN launches).
    pub const COLUMN_NR: PerField = PerField {
        bn254_fr: "ntt_column_nr_bn254_fr",
        bls12_381_fr: "ntt_column_nr_bls12_381_fr",
    };
    /// ... and the RN launches (bit-reversed rows in).
    pub const COLUMN_RN: PerField = PerField {
        bn254_fr: "ntt_column_rn_bn254_fr",
        bls12_381_fr: "ntt_column_rn_bls12_381_fr",
    };
    /// A coset LDE's fused column launch (flag LDE): the inverse's last column NTT, g^j / N, the
    /// forward's first column NTT and its stage twiddles, in one pass.
    pub const COLUMN_LDE: PerField = PerField {
        bn254_fr: "ntt_column_lde_bn254_fr",
        bls12_381_fr: "ntt_column_lde_bls12_381_fr",
    };
    /// ... the same for an inverse NR's last launch and a coset RN's first (flags LDE and
    /// IN_BITREV: contiguous segments, the coset's exponents bit-reversed).
    pub const COLUMN_LDE_ORDERED: PerField = PerField {
        bn254_fr: "ntt_column_lde_ordered_bn254_fr",
        bls12_381_fr: "ntt_column_lde_ordered_bls12_381_fr",
    };
    /// The column launches of narrow blocks (flag NARROW: a radix-2 butterfly per thread, the
    /// elements in 16-byte quads), one symbol per kind as above, apart from the wide blocks'
    /// symbols so that each gets its own register allocation: natural order ...
    pub const COLUMN_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_narrow_bls12_381_fr",
    };
    /// ... the second launch of a two-pass natural-order transform ...
    pub const COLUMN_T_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_t_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_t_narrow_bls12_381_fr",
    };
    /// ... the NR launches ...
    pub const COLUMN_NR_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_nr_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_nr_narrow_bls12_381_fr",
    };
    /// ... the RN launches ...
    pub const COLUMN_RN_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_rn_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_rn_narrow_bls12_381_fr",
    };
    /// ... a coset LDE's fused launch ...
    pub const COLUMN_LDE_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_lde_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_lde_narrow_bls12_381_fr",
    };
    /// ... and its ordered form.
    pub const COLUMN_LDE_ORDERED_NARROW: PerField = PerField {
        bn254_fr: "ntt_column_lde_ordered_narrow_bn254_fr",
        bls12_381_fr: "ntt_column_lde_ordered_narrow_bls12_381_fr",
    };
    /// The column launches of wide blocks with the hybrid product (flag FP64_HYBRID: one product
    /// of each independent pair on the FP64 pipe), natural order ...
    pub const COLUMN_HYBRID: PerField = PerField {
        bn254_fr: "ntt_column_hybrid_bn254_fr",
        bls12_381_fr: "ntt_column_hybrid_bls12_381_fr",
    };
    /// ... the NR launches ...
    pub const COLUMN_NR_HYBRID: PerField = PerField {
        bn254_fr: "ntt_column_nr_hybrid_bn254_fr",
        bls12_381_fr: "ntt_column_nr_hybrid_bls12_381_fr",
    };
    /// ... and the RN launches.
    pub const COLUMN_RN_HYBRID: PerField = PerField {
        bn254_fr: "ntt_column_rn_hybrid_bn254_fr",
        bls12_381_fr: "ntt_column_rn_hybrid_bls12_381_fr",
    };
    /// `cuda/ntt/middle.cu`: Q-point NTTs on tile pairs, with the transposing swap.
    pub const MIDDLE: PerField = PerField {
        bn254_fr: "ntt_middle_bn254_fr",
        bls12_381_fr: "ntt_middle_bls12_381_fr",
    };
    /// `cuda/ntt/stage2_warp.cu`: the seed's stage2, the middle stage one tile pair per warp.
    pub const STAGE2_WARP: PerField = PerField {
        bn254_fr: "ntt_stage2_warp_bn254_fr",
        bls12_381_fr: "ntt_stage2_warp_bls12_381_fr",
    };
    /// `cuda/ntt/stage1_block.cu`: the seed's stage1, the column launches with word loads and
    /// warp-shuffle butterflies, for blocks of 2^9 slots (4 per thread) ...
    pub const STAGE1_EL4: PerField = PerField {
        bn254_fr: "ntt_stage1_el4_bn254_fr",
        bls12_381_fr: "ntt_stage1_el4_bls12_381_fr",
    };
    /// ... and of 2^10 slots (8 per thread).
    pub const STAGE1_EL8: PerField = PerField {
        bn254_fr: "ntt_stage1_el8_bn254_fr",
        bls12_381_fr: "ntt_stage1_el8_bls12_381_fr",
    };
    /// `cuda/ntt/cluster.cu`: a whole transform in one launch on a thread-block cluster (sm_90+),
    /// its blocks exchanging through distributed shared memory; every ordering by its flags.
    pub const CLUSTER: PerField = PerField {
        bn254_fr: "ntt_cluster_bn254_fr",
        bls12_381_fr: "ntt_cluster_bls12_381_fr",
    };
    /// `cuda/ntt/split_pack.cu`: the split NTT's four-step twiddle and send-layout pack (one
    /// transform across GPUs, between its two local passes).
    pub const SPLIT_PACK: PerField = PerField {
        bn254_fr: "ntt_split_pack_bn254_fr",
        bls12_381_fr: "ntt_split_pack_bls12_381_fr",
    };
}

/// `cuda/field/elementwise.cu`: element-wise arithmetic.
pub mod field {
    use super::PerField;

    pub const ADD: PerField = PerField {
        bn254_fr: "field_add_bn254_fr",
        bls12_381_fr: "field_add_bls12_381_fr",
    };
    pub const SUB: PerField = PerField {
        bn254_fr: "field_sub_bn254_fr",
        bls12_381_fr: "field_sub_bls12_381_fr",
    };
    pub const MUL: PerField = PerField {
        bn254_fr: "field_mul_bn254_fr",
        bls12_381_fr: "field_mul_bls12_381_fr",
    };
    pub const SQR: PerField = PerField {
        bn254_fr: "field_sqr_bn254_fr",
        bls12_381_fr: "field_sqr_bls12_381_fr",
    };
    /// Multiplication by one scalar, passed by value.
    pub const SCALE: PerField = PerField {
        bn254_fr: "field_scale_bn254_fr",
        bls12_381_fr: "field_scale_bls12_381_fr",
    };
    /// `cuda/field/product_chain.cu`: the product microbenchmark's chains (integer, FP64, both;
    /// the FP64 product as `fp64::mul` or `fp64::mul_folded`).
    pub const CHAIN_INT: PerField = PerField {
        bn254_fr: "field_chain_int_bn254_fr",
        bls12_381_fr: "field_chain_int_bls12_381_fr",
    };
    pub const CHAIN_FP64: PerField = PerField {
        bn254_fr: "field_chain_fp64_bn254_fr",
        bls12_381_fr: "field_chain_fp64_bls12_381_fr",
    };
    pub const CHAIN_FP64_FOLDED: PerField = PerField {
        bn254_fr: "field_chain_fp64_folded_bn254_fr",
        bls12_381_fr: "field_chain_fp64_folded_bls12_381_fr",
    };
    pub const CHAIN_HYBRID: PerField = PerField {
        bn254_fr: "field_chain_hybrid_bn254_fr",
        bls12_381_fr: "field_chain_hybrid_bls12_381_fr",
    };
    pub const CHAIN_HYBRID_FOLDED: PerField = PerField {
        bn254_fr: "field_chain_hybrid_folded_bn254_fr",
        bls12_381_fr: "field_chain_hybrid_folded_bls12_381_fr",
    };
}

/// `cuda/field/product_chain.cu`: raw pipe rates beside the product chains (no field).
pub mod pipe {
    /// Independent DFMA chains on every SM.
    pub const DFMA: &str = "pipe_rate_dfma";
    /// Independent IMAD.WIDE.U32 chains on every SM.
    pub const IMAD_WIDE: &str = "pipe_rate_imad_wide";
}

/// Every field-independent name above, for the build's check.
pub const ALL_PLAIN: [&str; 2] = [pipe::DFMA, pipe::IMAD_WIDE];

/// Every per-field name above, for the build's check.
pub const ALL: [PerField; 31] = [
    ntt::COLUMN,
    ntt::COLUMN_T,
    ntt::CLUSTER,
    ntt::SPLIT_PACK,
    ntt::MIDDLE,
    ntt::STAGE2_WARP,
    ntt::STAGE1_EL4,
    ntt::STAGE1_EL8,
    ntt::COLUMN_NR,
    ntt::COLUMN_RN,
    ntt::COLUMN_LDE,
    ntt::COLUMN_LDE_ORDERED,
    ntt::COLUMN_HYBRID,
    ntt::COLUMN_NR_HYBRID,
    ntt::COLUMN_RN_HYBRID,
    ntt::COLUMN_NARROW,
    ntt::COLUMN_T_NARROW,
    ntt::COLUMN_NR_NARROW,
    ntt::COLUMN_RN_NARROW,
    ntt::COLUMN_LDE_NARROW,
    ntt::COLUMN_LDE_ORDERED_NARROW,
    field::ADD,
    field::SUB,
    field::MUL,
    field::SQR,
    field::SCALE,
    field::CHAIN_INT,
    field::CHAIN_FP64,
    field::CHAIN_HYBRID,
    field::CHAIN_FP64_FOLDED,
    field::CHAIN_HYBRID_FOLDED,
];
