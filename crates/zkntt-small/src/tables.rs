//! Twiddle tables in each form's representation, shared by the GPU kernels and their CPU twins.

use crate::field::TILE_LOG;
use crate::modmul::{ModMulForm, Modulus};
use crate::{Direction, Result, SmallField};

/// Multipliers encoded for one form: `(w, 0)`, `(w, w')` (Shoup) or `(wR mod q, 0)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    pub form: ModMulForm,
    pub entries: Vec<[u32; 2]>,
}

impl Encoded {
    pub fn new(m: &Modulus, form: ModMulForm, values: impl IntoIterator<Item = u32>) -> Self {
        Self {
            form,
            entries: values.into_iter().map(|w| m.encode(form, w)).collect(),
        }
    }

    /// The device layout: one word per entry, or (w, w') pairs for the Shoup forms.
    pub fn device_words(&self) -> Vec<u32> {
        if self.form.has_companion() {
            self.entries.iter().flatten().copied().collect()
        } else {
            self.entries.iter().map(|e| e[0]).collect()
        }
    }
}

fn powers(field: SmallField, w: u32, count: usize) -> impl Iterator<Item = u32> {
    let mut x = 1u32;
    (0..count).map(move |_| {
        let y = x;
        x = field.mul(x, w);
        y
    })
}

/// The DIF twiddles of every layer, layer by layer: entry `(1 << b) | j` holds w_2^(b+1)^j
/// = w_4096^(j << (11 - b)) (w^-1 for the inverse), for the layer with stride 2^b and offset
/// j < 2^b; entry 0 holds 1. 4096 entries serve every size up to 4096, and the lanes of a warp
/// reading consecutive offsets of one layer read consecutive entries.
pub fn dif_twiddles(field: SmallField, form: ModMulForm, direction: Direction) -> Result<Encoded> {
    let m = Modulus::new(field.modulus())?;
    let w = field.directed_root(TILE_LOG, direction)?;
    let pow: Vec<u32> = powers(field, w, 1 << (TILE_LOG - 1)).collect();
    let entries = (0..1u32 << TILE_LOG).map(|i| {
        if i == 0 {
            1
        } else {
            let b = 31 - i.leading_zeros(); // the layer: 2^b <= i < 2^(b+1)
            let j = i - (1 << b);
            pow[(j << (TILE_LOG - 1 - b)) as usize]
        }
    });
    Ok(Encoded::new(&m, form, entries))
}

/// The 2-D twiddles of a transform of 2^log_m: `lo[i] = w^i` (i < 4096) and `hi[i] = w^(4096 i)`
/// (i < max(4096, 2^(log_m - 12))), so that w^e = lo[e mod 4096] * hi[e / 4096] for every e < 2^log_m
/// (and every e < 2^24).
pub fn post_twiddles(
    field: SmallField,
    form: ModMulForm,
    direction: Direction,
    log_m: u32,
) -> Result<(Encoded, Encoded)> {
    let m = Modulus::new(field.modulus())?;
    let w = field.directed_root(log_m, direction)?;
    let lo = Encoded::new(&m, form, powers(field, w, 1 << TILE_LOG));
    let w_hi = field.pow(w, 1 << TILE_LOG);
    let hi_len = 1usize << log_m.saturating_sub(TILE_LOG).max(TILE_LOG);
    let hi = Encoded::new(&m, form, powers(field, w_hi, hi_len));
    Ok((lo, hi))
}

/// 1/2^log_n in `form`'s representation.
pub fn inverse_scale(field: SmallField, form: ModMulForm, log_n: u32) -> Result<[u32; 2]> {
    let m = Modulus::new(field.modulus())?;
    let n_inv = field.inv(field.pow(2, log_n as u64)).unwrap_or(1);
    Ok(m.encode(form, n_inv))
}
