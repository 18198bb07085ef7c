//! The conformance suite of `domain.rs`, stamped onto `GpuDomain05`, the ark-poly 0.5 domain
//! (feature `ark-poly-05`): every trait method against ark-poly 0.5's `Radix2EvaluationDomain`,
//! bit for bit, on the CPU fallback and on the GPU, BN254 and BLS12-381 (0.5 types).
#![cfg(feature = "ark-poly-05")]

use ark_bls12_381_05::Fr as Bls12_381Fr;
use ark_bn254_05::{Fr as Bn254Fr, G1Projective as Bn254G1};
use ark_ff_05::{FftField, Field, UniformRand};
use ark_poly_05::{EvaluationDomain, Radix2EvaluationDomain};
use ark_serialize_05::{CanonicalDeserialize, CanonicalSerialize, Compress, Validate};
use ark_std_05::rand::{SeedableRng, rngs::StdRng};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{RwLock, RwLockReadGuard};
use zkntt_ark::v05::GpuDomain05 as GpuDomain;
use zkntt_ark::{Backend, CpuReason, Placement, last_placement, with_backend};

include!("common/conformance.rs");
