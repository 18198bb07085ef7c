//! Field descriptors derived from ark-ff types: everything a kernel needs to know about a prime
//! field, computed from the type rather than typed in.

use ark_ff::{BigInteger, FftField, PrimeField};
use num_bigint::BigUint;
use std::any::TypeId;

/// Constants of a prime field in the layout the GPU uses: little-endian 32-bit limbs, Montgomery
/// form with `R = 2^(32 * limbs)` (byte-identical to ark-ff's `Fp` with `MontBackend`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDesc {
    /// Short name, also the suffix of the kernel symbols (`field_mul_bn254_fr`).
    pub name: &'static str,
    /// The modulus p, 32-bit limbs, little-endian.
    pub modulus: Vec<u32>,
    /// Bits in p.
    pub modulus_bits: u32,
    /// `-p^-1 mod 2^32`, the Montgomery reduction factor for 32-bit limbs.
    pub m0: u32,
    /// `R mod p`: one in Montgomery form.
    pub one: Vec<u32>,
    /// `R^2 mod p`: multiplying by it (Montgomery) converts into Montgomery form.
    pub r2: Vec<u32>,
    /// The largest k with 2^k | p - 1.
    pub two_adicity: u32,
    /// The primitive 2^two_adicity-th root of unity ark-poly uses, in Montgomery form.
    pub two_adic_root: Vec<u32>,
    /// The multiplicative generator (ark's `GENERATOR`, the default coset offset), Montgomery form.
    pub generator: Vec<u32>,
}

fn to_limbs32(x: &BigUint, limbs: usize) -> Vec<u32> {
    let mut v = x.to_u32_digits();
    v.resize(limbs, 0);
    v
}

/// The element's Montgomery representation `x * R mod p` as 32-bit limbs.
fn mont_limbs<F: PrimeField>(x: F, limbs: usize) -> Vec<u32> {
    let p: BigUint = F::MODULUS.into();
    let r = BigUint::from(1u32) << (32 * limbs);
    let x: BigUint = x.into_bigint().into();
    to_limbs32(&((x * r) % p), limbs)
}

impl FieldDesc {
    /// Derives the descriptor of `F`. `name` becomes the kernel suffix.
    pub fn of<F: PrimeField + FftField>(name: &'static str) -> Self {
        let limbs = F::MODULUS.as_ref().len() * 2;
        let p: BigUint = F::MODULUS.into();
        let r = BigUint::from(1u32) << (32 * limbs);
        let p0 = F::MODULUS.as_ref()[0] as u32;
        // Newton iteration for p0^-1 mod 2^32: each step doubles the correct low bits (p0 is odd).
        let mut inv: u32 = 1;
        for _ in 0..5 {
            inv = inv.wrapping_mul(2u32.wrapping_sub(p0.wrapping_mul(inv)));
        }
        Self {
            name,
            modulus: to_limbs32(&p, limbs),
            modulus_bits: F::MODULUS.num_bits(),
            m0: inv.wrapping_neg(),
            one: to_limbs32(&(&r % &p), limbs),
            r2: to_limbs32(&((&r * &r) % &p), limbs),
            two_adicity: F::TWO_ADICITY,
            two_adic_root: mont_limbs(F::TWO_ADIC_ROOT_OF_UNITY, limbs),
            generator: mont_limbs(F::GENERATOR, limbs),
        }
    }

    /// Number of 32-bit limbs of one element.
    pub fn limbs(&self) -> usize {
        self.modulus.len()
    }

    /// The CUDA header that gives the kernels this field's constants (`cuda/field/<name>.cuh`).
    /// Committed to the repository; a test checks it equals this rendering.
    pub fn cuda_params_header(&self) -> String {
        fn arr(v: &[u32]) -> String {
            let items: Vec<String> = v.iter().map(|x| format!("0x{x:08x}u")).collect();
            items.join(", ")
        }
        let s = self.name;
        format!(
            "// Generated from the ark-ff type by zkntt-core (FieldDesc::cuda_params_header).\n\
             // Do not edit: `make fixtures` regenerates it; a zkntt-core test checks it is current.\n\
             #pragma once\n\
             #include <cstdint>\n\
             #include \"mont.cuh\"\n\n\
             namespace zkntt {{\n\n\
             struct {s}_params {{\n\
             \x20   static constexpr int LIMBS = {limbs};\n\
             \x20   static constexpr int MODULUS_BITS = {bits};\n\
             \x20   static constexpr uint32_t M0 = 0x{m0:08x}u;\n\
             \x20   static constexpr int TWO_ADICITY = {adicity};\n\
             \x20   // Limb i of a constant (little-endian); functions because nvcc does not allow\n\
             \x20   // static constexpr arrays in device code. Folded to immediates in unrolled loops.\n\
             \x20   __host__ __device__ static constexpr uint32_t modulus(int i) {{ constexpr uint32_t v[LIMBS] = {{{p}}}; return v[i]; }}\n\
             \x20   __host__ __device__ static constexpr uint32_t one(int i) {{ constexpr uint32_t v[LIMBS] = {{{one}}}; return v[i]; }}\n\
             \x20   __host__ __device__ static constexpr uint32_t r2(int i) {{ constexpr uint32_t v[LIMBS] = {{{r2}}}; return v[i]; }}\n\
             \x20   __host__ __device__ static constexpr uint32_t two_adic_root(int i) {{ constexpr uint32_t v[LIMBS] = {{{root}}}; return v[i]; }}\n\
             \x20   __host__ __device__ static constexpr uint32_t generator(int i) {{ constexpr uint32_t v[LIMBS] = {{{generator}}}; return v[i]; }}\n\
             }};\n\n\
             using {s} = mont<{s}_params>;\n\n\
             }}  // namespace zkntt\n",
            limbs = self.limbs(),
            bits = self.modulus_bits,
            m0 = self.m0,
            adicity = self.two_adicity,
            p = arr(&self.modulus),
            one = arr(&self.one),
            r2 = arr(&self.r2),
            root = arr(&self.two_adic_root),
            generator = arr(&self.generator),
        )
    }
}

/// The fields that have GPU kernels, as a value: the run-time name of a [`GpuField`] (its
/// [`GpuField::ID`]). The GPU API takes only `GpuField` types, so a field outside this list is a
/// compile error there (the CPU reference takes any FFT-friendly field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldId {
    /// BN254 scalar field (`ark_bn254::Fr`), 254 bits, two-adicity 28.
    Bn254Fr,
    /// BLS12-381 scalar field (`ark_bls12_381::Fr`), 255 bits, two-adicity 32.
    Bls12_381Fr,
}

impl FieldId {
    /// Every field with kernels.
    pub const ALL: [FieldId; 2] = [FieldId::Bn254Fr, FieldId::Bls12_381Fr];

    /// The field of type `F`, if it is one with kernels: [`GpuField::ID`] found at run time, for
    /// code generic over any field that dispatches to the GPU only for these (zkntt-ark's domains).
    /// Code that knows `F: GpuField` uses `F::ID`.
    pub fn of<F: 'static>() -> Option<Self> {
        let t = TypeId::of::<F>();
        if t == TypeId::of::<ark_bn254::Fr>() {
            Some(FieldId::Bn254Fr)
        } else if t == TypeId::of::<ark_bls12_381::Fr>() {
            Some(FieldId::Bls12_381Fr)
        } else {
            None
        }
    }

    /// Kernel-symbol suffix and header name.
    pub fn name(self) -> &'static str {
        match self {
            FieldId::Bn254Fr => "bn254_fr",
            FieldId::Bls12_381Fr => "bls12_381_fr",
        }
    }

    /// The descriptor, derived from the ark-ff type.
    pub fn desc(self) -> FieldDesc {
        match self {
            FieldId::Bn254Fr => FieldDesc::of::<ark_bn254::Fr>(self.name()),
            FieldId::Bls12_381Fr => FieldDesc::of::<ark_bls12_381::Fr>(self.name()),
        }
    }

    /// Bytes of one element.
    pub fn element_bytes(self) -> usize {
        32
    }
}

mod sealed {
    /// Implemented only in this module, for the fields [`super::GpuField`] is implemented for:
    /// no other crate can add a type to the GPU's fields.
    pub trait Sealed {}
}

/// A field with GPU kernels: exactly `ark_bn254::Fr` (BN254 scalar field) and `ark_bls12_381::Fr`
/// (BLS12-381 scalar field). zkntt-gpu takes only these types (`DeviceVec<F: GpuField>`, the
/// transforms of `NttEngine` and `HostPipeline`, `field_ops`), so handing it any other type is a
/// compile error rather than a run-time error.
///
/// The trait is sealed (it cannot be implemented outside zkntt-core) because the GPU reads the
/// elements' bytes as they are: four little-endian `u64` Montgomery limbs with `R = 2^256`, the
/// layout of ark-ff's `Fp<MontBackend<_, 4>>`, with the constants of [`Self::ID`]'s kernels. A
/// type of the same size with another field, another representation or another layout would be
/// read as garbage, so each implementation here comes with a compile-time check of its size (32
/// bytes) and alignment (8), and the tests check its bytes against the field's descriptor.
///
/// ```
/// use zkntt_core::{FieldId, GpuField};
///
/// fn field_of<F: GpuField>(_: &[F]) -> FieldId {
///     F::ID
/// }
/// assert_eq!(field_of(&[ark_bn254::Fr::from(1u64)]), FieldId::Bn254Fr);
/// ```
///
/// ```compile_fail
/// use zkntt_core::GpuField;
///
/// fn id<F: GpuField>() {}
/// id::<ark_bn254::Fq>(); // the base field has no kernels
/// ```
pub trait GpuField: sealed::Sealed + PrimeField + FftField + Copy + Send + Sync + 'static {
    /// The field's kernels.
    const ID: FieldId;
}

/// `GpuField` (and `Sealed`) for an ark-ff scalar-field type, with the layout check that makes
/// reading its bytes as limbs sound.
macro_rules! gpu_field {
    ($t:ty, $id:expr) => {
        impl sealed::Sealed for $t {}
        impl GpuField for $t {
            const ID: FieldId = $id;
        }
        // The GPU reads `&[F]` as raw limbs. `Fp` is `(BigInt<4>, PhantomData)` with default
        // repr; a size of exactly 32 bytes leaves the `[u64; 4]` no room but offset 0, so the
        // bytes are the limbs.
        const _: () = {
            assert!(std::mem::size_of::<$t>() == 32);
            assert!(std::mem::align_of::<$t>() == 8);
        };
    };
}

gpu_field!(ark_bn254::Fr, FieldId::Bn254Fr);
gpu_field!(ark_bls12_381::Fr, FieldId::Bls12_381Fr);

/// The element's in-memory Montgomery limbs as eight little-endian 32-bit words (tests).
#[cfg(test)]
pub(crate) fn mont_words<F: GpuField>(x: &F) -> [u32; 8] {
    // SAFETY: F is a GpuField, whose size (32) and alignment (8) `gpu_field!` checks.
    let words: [u64; 4] = unsafe { std::mem::transmute_copy(x) };
    let mut out = [0u32; 8];
    for (i, w) in words.iter().enumerate() {
        (out[2 * i], out[2 * i + 1]) = (*w as u32, (*w >> 32) as u32);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limbs_of<F: GpuField>(x: &F) -> Vec<u32> {
        mont_words(x).to_vec()
    }

    fn check_desc<F: GpuField>(id: FieldId) {
        let d = id.desc();
        assert_eq!(d.limbs(), 8);
        // In-memory bytes of ark's elements are the Montgomery limbs the descriptor predicts.
        assert_eq!(limbs_of(&F::one()), d.one, "{}: one", d.name);
        assert_eq!(
            limbs_of(&F::GENERATOR),
            d.generator,
            "{}: generator",
            d.name
        );
        assert_eq!(
            limbs_of(&F::TWO_ADIC_ROOT_OF_UNITY),
            d.two_adic_root,
            "{}: root",
            d.name
        );
        // R^2 mod p is the Montgomery form of the element R = 2^256 mod p.
        let r = F::from(2u64).pow([256u64]);
        assert_eq!(limbs_of(&r), d.r2, "{}: r2", d.name);
        // -p^-1 * p == -1 mod 2^32.
        assert_eq!(d.m0.wrapping_mul(d.modulus[0]), u32::MAX);
        // The root has order exactly 2^two_adicity.
        let w = F::TWO_ADIC_ROOT_OF_UNITY;
        assert_eq!(w.pow([1u64 << d.two_adicity]), F::one());
        assert_ne!(w.pow([1u64 << (d.two_adicity - 1)]), F::one());
        assert_eq!(FieldId::of::<F>(), Some(id));
        assert_eq!(F::ID, id);
    }

    #[test]
    fn descriptors_match_ark() {
        check_desc::<ark_bn254::Fr>(FieldId::Bn254Fr);
        check_desc::<ark_bls12_381::Fr>(FieldId::Bls12_381Fr);
        assert_eq!(FieldId::Bn254Fr.desc().two_adicity, 28);
        assert_eq!(FieldId::Bls12_381Fr.desc().two_adicity, 32);
        assert_eq!(FieldId::of::<ark_bn254::Fq>(), None);
        assert_eq!(FieldId::of::<u64>(), None);
    }

    /// The committed CUDA headers are the rendering of the descriptors. Regenerate with
    /// `ZKNTT_BLESS=1 cargo test -p zkntt-core cuda_params_headers` (what `make fixtures` runs).
    #[test]
    fn cuda_params_headers_are_current() {
        // Embedded, so the check needs no source tree at run time.
        let committed = [
            (
                FieldId::Bn254Fr,
                include_str!("../../../cuda/field/bn254_fr.cuh"),
            ),
            (
                FieldId::Bls12_381Fr,
                include_str!("../../../cuda/field/bls12_381_fr.cuh"),
            ),
        ];
        assert_eq!(
            committed.len(),
            FieldId::ALL.len(),
            "a field without a header"
        );
        for (id, have) in committed {
            let want = id.desc().cuda_params_header();
            if std::env::var_os("ZKNTT_BLESS").is_some() {
                let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../cuda/field");
                std::fs::write(dir.join(format!("{}.cuh", id.name())), &want).unwrap();
                continue;
            }
            assert_eq!(
                have,
                want,
                "cuda/field/{}.cuh is stale; run `make fixtures`",
                id.name()
            );
        }
    }
}
