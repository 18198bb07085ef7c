//! The host API of the small-word NTT kernels: device-resident batches on the GPU's stream (here),
//! one cluster launch for 2^13..2^16 on sm_90 (`cluster.rs`), the 2-D
//! decomposition beyond one tile (`two_d.rs`), and host-to-host batches over several CUDA streams
//! (`host.rs`).

mod cluster;
mod host;
mod nn_rows;
mod panel;
mod two_d;

pub(crate) use cluster::MAX_LOG_CLUSTER;
pub use cluster::cluster_kernel_name;
pub use host::PinnedBuffer;
pub(crate) use nn_rows::takes_shape as nn_rows_takes_shape;
pub use nn_rows::{nn_rows_kernel_name, nn_rows_wide_kernel_name};
#[cfg(test)]
pub(crate) use panel::WIDE_PANEL_WORDS;
pub use panel::{
    panel_kernel_name, panel_nr_kernel_name, panel_rn_kernel_name, panel_two_group_kernel_name,
};
pub(crate) use panel::{panel_stride, pass_tiles};
pub(crate) use two_d::{rn_split, rows_on_tiles, two_d_split};

use crate::error::{DriverContext, oom};
use crate::field::TILE_LOG;
use crate::tables;
use crate::{Direction, Error, ModMulForm, Result, SmallField};
use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig,
};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use zkntt_gpu::{Gpu, Ordering};

/// Which kernel computes the transforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// Warp-shuffle butterflies, shared memory only between warps (`cuda/small/ntt_wsx.cu`).
    Wsx,
    /// The baseline: shared memory and `__syncthreads` every layer (`cuda/small/ntt_block.cu`).
    BlockSync,
    /// Ablation of [`Kernel::Wsx`] for the benches: the same kernel with the first design's
    /// shuffle layers (every register shuffled, a half butterfly in both lanes). Montgomery lazy
    /// form only; other forms return [`Error::NoFormKernel`].
    WsxHalf,
}

impl Kernel {
    /// The kernels every field and form has.
    pub const ALL: [Kernel; 2] = [Kernel::Wsx, Kernel::BlockSync];
    /// The ablations of [`Kernel::Wsx`], for the Montgomery lazy form only.
    pub const ABLATIONS: [Kernel; 1] = [Kernel::WsxHalf];

    pub const fn name(self) -> &'static str {
        match self {
            Kernel::Wsx => "wsx",
            Kernel::BlockSync => "block",
            Kernel::WsxHalf => "wsx_half",
        }
    }

    /// Whether `cuda/small` instantiates this kernel in `form` (for every field).
    pub const fn has_form(self, form: ModMulForm) -> bool {
        match self {
            Kernel::Wsx | Kernel::BlockSync => true,
            Kernel::WsxHalf => matches!(form, ModMulForm::MontgomeryLazy),
        }
    }
}

/// `small_ntt_{kernel}_{field}_{form}`: the macros `ZKNTT_SMALL_WSX`, `ZKNTT_SMALL_WSX_HALF` and
/// `ZKNTT_SMALL_BLOCK` of `cuda/small` build the same names (checked by [`kernel_names`]' test).
pub fn kernel_name(kernel: Kernel, field: SmallField, form: ModMulForm) -> String {
    format!(
        "small_ntt_{}_{}_{}",
        kernel.name(),
        field.name(),
        form.name()
    )
}

/// `small_ntt_wsx_rn_{field}_{form}`: the WSX kernel with bit-reversed input (RN: the launch's
/// `order` is 2), a symbol of its own so that the other orders' registers stay as they were (the
/// macro `ZKNTT_SMALL_WSX` of `cuda/small/ntt_wsx.cu` builds both).
pub fn wsx_rn_kernel_name(field: SmallField, form: ModMulForm) -> String {
    format!("small_ntt_wsx_rn_{}_{}", field.name(), form.name())
}

/// `small_ntt_wsx_wide_{field}_{form}`: the WSX tile kernel on rows of two or four tiles (2^13,
/// 2^14; NR), the 2-D path's rows above 2^24 (the macro `ZKNTT_SMALL_WSX_WIDE` of
/// `cuda/small/ntt_wsx.cu`, BabyBear only: the one field with transforms that large).
pub fn wsx_wide_kernel_name(field: SmallField, form: ModMulForm) -> String {
    format!("small_ntt_wsx_wide_{}_{}", field.name(), form.name())
}

/// `small_ntt_wsx_wide_rn_{field}_{form}`: the wide tile kernel with bit-reversed input and
/// natural output (RN's rows of 2^13/2^14 above 2^24), a symbol of its own (the same macro).
pub fn wsx_wide_rn_kernel_name(field: SmallField, form: ModMulForm) -> String {
    format!("small_ntt_wsx_wide_rn_{}_{}", field.name(), form.name())
}

/// `NttParams::order` of an ordering: 0 NN, 1 NR (bit-reversed out), 2 RN (bit-reversed in).
fn order_code(ordering: Ordering) -> u32 {
    match ordering {
        Ordering::NN => 0,
        Ordering::NR => 1,
        Ordering::RN => 2,
    }
}

/// Every NTT kernel symbol [`SmallNtt`] can launch: each kernel in each field and form it has,
/// and the WSX kernel's RN symbol, the 2-D panel kernels (NN, NR, RN, each one- and two-group),
/// the cluster kernel and NN's rows kernel of each field and form, and BabyBear's wide tile
/// kernels and NN's wide rows.
pub fn kernel_names() -> impl Iterator<Item = String> {
    let tiles = Kernel::ALL
        .into_iter()
        .chain(Kernel::ABLATIONS)
        .flat_map(|k| {
            SmallField::ALL.into_iter().flat_map(move |f| {
                ModMulForm::ALL
                    .into_iter()
                    .filter(move |&m| k.has_form(m))
                    .map(move |m| kernel_name(k, f, m))
            })
        });
    let panels = SmallField::ALL.into_iter().flat_map(|f| {
        ModMulForm::ALL.into_iter().flat_map(move |m| {
            [
                wsx_rn_kernel_name(f, m),
                panel_kernel_name(f, m),
                panel_nr_kernel_name(f, m),
                panel_rn_kernel_name(f, m),
                panel_two_group_kernel_name(&panel_kernel_name(f, m)),
                panel_two_group_kernel_name(&panel_nr_kernel_name(f, m)),
                panel_two_group_kernel_name(&panel_rn_kernel_name(f, m)),
                cluster_kernel_name(f, m),
                nn_rows_kernel_name(f, m),
            ]
        })
    });
    let wide = ModMulForm::ALL.into_iter().flat_map(|m| {
        [
            wsx_wide_kernel_name(SmallField::BabyBear, m),
            wsx_wide_rn_kernel_name(SmallField::BabyBear, m),
            nn_rows_wide_kernel_name(m),
        ]
    });
    tiles.chain(panels).chain(wide)
}

/// The kernels' parameter struct (`NttParams` in `cuda/small/ntt.cuh`), byte for byte.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct NttParams {
    data: u64,
    twiddles: u64,
    post_lo: u64,
    post_hi: u64,
    batch: u64,
    log_n: u32,
    q: u32,
    scale_w: u32,
    scale_w_shoup: u32,
    has_scale: u32,
    post_log_rows: u32,
    /// [`order_code`]: 0 NN, 1 output bit-reversed (NR), 2 input bit-reversed (RN).
    order: u32,
    /// 1: the tile kernel waits for the stream's previous grid before it reads or writes the
    /// data (a programmatic dependent launch; [`SmallNtt::launch`] sets the attribute with it).
    /// It reads only its constant tables before.
    dependent: u32,
}

// SAFETY: plain-old-data with the C layout the kernels declare (checked by size in a test).
unsafe impl DeviceRepr for NttParams {}

const THREADS: u32 = 256;
/// Resident blocks per multiprocessor (the kernels' `__launch_bounds__(256, 4)`): the grid is one
/// wave of them, each looping over tiles, so per-block setup is paid once per block, not per tile.
const BLOCKS_PER_SM: u64 = 4;

/// Blocks of `smem` bytes of dynamic shared memory that `smem_per_sm` bytes hold (the driver
/// reserves 1 KiB a block).
pub(crate) fn blocks_by_smem(smem: u32, smem_per_sm: u32) -> u32 {
    smem_per_sm / (smem + 1024)
}

/// A table on the device and its address. Written once, by an upload that is complete before
/// the address is handed out, and only read afterwards: launches pass the address without
/// cudarc's per-access event calls (a wait and a record each, which a lone small transform
/// would otherwise pay in host time, its GPU idle).
#[derive(Debug)]
struct Table {
    _buf: CudaSlice<u32>,
    ptr: u64,
}

impl Table {
    /// Uploads `words` on `stream` and waits for the copy.
    fn upload(stream: &Arc<CudaStream>, words: &[u32], what: &'static str) -> Result<Self> {
        let buf = stream.clone_htod(words).during(what)?;
        stream.synchronize().during(what)?;
        let ptr = buf.device_ptr(stream).0;
        Ok(Self { _buf: buf, ptr })
    }
}

/// The 2-D twiddles (lo, hi) of one size and direction, on the device.
type PostTables = (Table, Table);

#[derive(Debug)]
struct Twiddles {
    forward: Table,
    inverse: Table,
}

/// Small-word NTTs of one field in one modmul form on one GPU. Twiddle tables are built once;
/// the 2-D twiddles once per size; scratch and stream resources on first use, then reused.
#[derive(Debug)]
pub struct SmallNtt {
    gpu: Gpu,
    field: SmallField,
    form: ModMulForm,
    twiddles: Twiddles,
    /// Multiprocessors of this GPU.
    sms: u64,
    /// Whether a launch may depend programmatically on the previous one (sm_90+).
    dependent_launch: bool,
    /// Blocks of one full wave of the tile kernels on this GPU.
    max_grid: u64,
    /// Most tiles a panel may hold on this GPU (8 where a block may opt into 144 KiB of shared
    /// memory: sm_80, sm_90; 4 elsewhere).
    max_panel_tiles: u32,
    /// Shared memory of a multiprocessor, bytes (how many panels run side by side).
    smem_per_sm: u32,
    /// log2 of the largest transform this GPU's clusters hold (12: none); `takes_cluster` also
    /// asks `cluster_batch_fits`.
    cluster_max_log_n: u32,
    /// The cluster kernel, resolved once (a lone small transform pays its host time).
    cluster_f: CudaFunction,
    /// NN's rows kernel with the transpose in its store (`nn_rows.rs`), resolved once, and how
    /// many of its clusters of 8 this GPU holds at once (0: it is not used).
    nn_rows_f: CudaFunction,
    nn_rows_clusters: u64,
    /// NN's rows of 2^13/2^14 on the same store (BabyBear's only), and its clusters of 8 at
    /// once for rows of 2^14 (0: not used).
    nn_rows_wide_f: Option<CudaFunction>,
    nn_rows_wide_clusters: u64,
    /// Whether the cluster kernel is on ([`SmallNtt::set_clusters`]).
    clusters: std::sync::atomic::AtomicBool,
    post: Mutex<HashMap<(u32, Direction), PostTables>>,
    scratch: Mutex<Option<Scratch>>,
    lanes: Mutex<Vec<host::Lane>>,
}

/// `ordering`, or why `kernel` cannot give it.
fn check_ordering(kernel: Kernel, ordering: Ordering) -> Result<Ordering> {
    match ordering {
        Ordering::NN => Ok(ordering),
        Ordering::NR | Ordering::RN if kernel != Kernel::Wsx => Err(Error::OrderingUnsupported {
            ordering,
            reason: "the bit-reversed orders are built for the WSX kernel (Kernel::Wsx) only",
        }),
        Ordering::NR | Ordering::RN => Ok(ordering),
    }
}

/// The 2-D path's scratch buffer and its device address.
type Scratch = (CudaSlice<u32>, u64);

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl SmallNtt {
    /// Uploads the twiddle tables. Errors where the GPU or its kernels are missing.
    pub fn new(gpu: &Gpu, field: SmallField, form: ModMulForm) -> Result<Self> {
        if !zkntt_gpu::kernels_built() {
            return Err(zkntt_gpu::Error::KernelsNotBuilt {
                note: zkntt_gpu::KERNELS_BUILD_NOTE,
            }
            .into());
        }
        let upload = |dir| -> Result<Table> {
            let words = tables::dif_twiddles(field, form, dir)?.device_words();
            Table::upload(gpu.stream(), &words, "twiddle upload")
        };
        let twiddles = Twiddles {
            forward: upload(Direction::Forward)?,
            inverse: upload(Direction::Inverse)?,
        };
        // Resolve the kernels now, so a missing one is an error here rather than mid-batch.
        for k in Kernel::ALL {
            gpu.function(&kernel_name(k, field, form))?;
        }
        gpu.function(&wsx_rn_kernel_name(field, form))?;
        for panel in [
            panel_kernel_name(field, form),
            panel_nr_kernel_name(field, form),
            panel_rn_kernel_name(field, form),
        ] {
            gpu.function(&panel_two_group_kernel_name(&panel))?;
            gpu.function(&panel)?;
        }
        let cluster_f = gpu.function(&cluster_kernel_name(field, form))?;
        let sms = gpu
            .context()
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .during("multiprocessor count")?;
        let dependent_launch = gpu.info().is_ok_and(|i| i.compute_capability.0 >= 9);
        let smem_optin = gpu
            .context()
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .unwrap_or(0);
        let smem_per_sm = gpu
            .context()
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)
            .map_or(0, |b| b.max(0) as u32);
        // 8-tile panels where the block may opt into their shared memory, else 4 (80 KiB).
        let max_panel_tiles =
            if panel::panel_smem_bytes(panel::MAX_PANEL_TILES) as i64 <= smem_optin as i64 {
                panel::MAX_PANEL_TILES
            } else {
                4
            };
        let cluster_max_log_n = cluster::max_log_n(gpu.stream(), &cluster_f, dependent_launch);
        let nn_rows_f = gpu.function(&nn_rows_kernel_name(field, form))?;
        let nn_rows_clusters = nn_rows::max_clusters(gpu.stream(), &nn_rows_f, dependent_launch);
        let nn_rows_wide_f = match field {
            SmallField::BabyBear => Some(gpu.function(&nn_rows_wide_kernel_name(form))?),
            _ => None,
        };
        let nn_rows_wide_clusters = nn_rows_wide_f.as_ref().map_or(0, |f| {
            nn_rows::max_wide_clusters(gpu.stream(), f, dependent_launch)
        });
        Ok(Self {
            gpu: gpu.clone(),
            field,
            form,
            twiddles,
            sms: sms.max(1) as u64,
            dependent_launch,
            max_panel_tiles,
            smem_per_sm,
            max_grid: (sms.max(1) as u64) * BLOCKS_PER_SM,
            cluster_max_log_n,
            cluster_f,
            nn_rows_f,
            nn_rows_clusters,
            nn_rows_wide_f,
            nn_rows_wide_clusters,
            clusters: std::sync::atomic::AtomicBool::new(true),
            post: Mutex::new(HashMap::new()),
            scratch: Mutex::new(None),
            lanes: Mutex::new(Vec::new()),
        })
    }

    pub fn field(&self) -> SmallField {
        self.field
    }

    pub fn form(&self) -> ModMulForm {
        self.form
    }

    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// log2 of the largest transform `kernel` runs on this GPU: the field's
    /// ([`SmallField::max_log_n`]), but at most 2^24 (two tiles) for the kernels other than
    /// [`Kernel::Wsx`], and for WSX at most a tile's columns times the largest cluster's rows
    /// (2^12 x 2^16: sm_90; 2^24 without clusters).
    pub fn max_log_n(&self, kernel: Kernel) -> u32 {
        let two_d = if kernel == Kernel::Wsx {
            TILE_LOG + self.cluster_max_log_n.max(TILE_LOG)
        } else {
            2 * TILE_LOG
        };
        self.field.max_log_n().min(two_d)
    }

    /// The batch of transforms of 2^log_n in `len` words, or why `kernel` cannot run them.
    fn check_for(&self, len: usize, log_n: u32, kernel: Kernel) -> Result<u64> {
        let batch = self.check(len, log_n)?;
        self.check_size(log_n, kernel)?;
        Ok(batch)
    }

    /// `SizeUnsupported` where 2^log_n is above [`SmallNtt::max_log_n`]`(kernel)` on this GPU.
    pub(crate) fn check_size(&self, log_n: u32, kernel: Kernel) -> Result<()> {
        let max = self.max_log_n(kernel);
        if log_n > max {
            return Err(Error::SizeUnsupported {
                field: self.field.name(),
                log_n,
                max,
            });
        }
        Ok(())
    }

    /// Whether `kernel` exists in this instance's form ([`Kernel::WsxHalf`] only in one).
    fn check_form(&self, kernel: Kernel) -> Result<()> {
        if !kernel.has_form(self.form) {
            return Err(Error::NoFormKernel {
                kernel: kernel.name(),
                form: self.form.name(),
                available: ModMulForm::MontgomeryLazy.name(),
            });
        }
        Ok(())
    }

    fn check(&self, len: usize, log_n: u32) -> Result<u64> {
        self.field.check_log_n(log_n)?;
        if len % (1usize << log_n) != 0 {
            return Err(Error::NotWholeTransforms { len, log_n });
        }
        Ok((len >> log_n) as u64)
    }

    /// The DIF table's address for `direction`.
    fn twiddle_table(&self, direction: Direction) -> u64 {
        match direction {
            Direction::Forward => self.twiddles.forward.ptr,
            Direction::Inverse => self.twiddles.inverse.ptr,
        }
    }

    /// The kernels' parameters: `batch` transforms of 2^log_n at `data`, the DIF table at `tw`,
    /// scaled by 2^-scale_log_n, times the 2-D twiddles `post` (lo, hi, log2 rows).
    fn params(
        &self,
        tw: u64,
        data: u64,
        batch: u64,
        log_n: u32,
        scale_log_n: Option<u32>,
        post: Option<(u64, u64, u32)>,
    ) -> Result<NttParams> {
        let scale = match scale_log_n {
            Some(l) => Some(tables::inverse_scale(self.field, self.form, l)?),
            None => None,
        };
        let (post_lo, post_hi, post_log_rows) = post.unwrap_or((0, 0, 0));
        Ok(NttParams {
            data,
            twiddles: tw,
            post_lo,
            post_hi,
            batch,
            log_n,
            q: self.field.modulus(),
            scale_w: scale.map_or(0, |s| s[0]),
            scale_w_shoup: scale.map_or(0, |s| s[1]),
            has_scale: scale.is_some() as u32,
            post_log_rows,
            order: 0,
            dependent: 0,
        })
    }

    /// One launch over `batch` transforms of 2^log_n (<= 2^12) at `data` on `stream`, in
    /// `ordering` (NR and RN: the WSX kernel, without `post`).
    #[allow(clippy::too_many_arguments)]
    fn launch(
        &self,
        stream: &Arc<CudaStream>,
        kernel: Kernel,
        data: u64,
        batch: u64,
        log_n: u32,
        direction: Direction,
        scale_log_n: Option<u32>,
        post: Option<(u64, u64, u32)>,
        ordering: Ordering,
        dependent: bool,
    ) -> Result<()> {
        debug_assert!(ordering == Ordering::NN || (kernel == Kernel::Wsx && post.is_none()));
        debug_assert!(
            !dependent || kernel == Kernel::Wsx,
            "only the WSX kernel waits"
        );
        self.check_form(kernel)?;
        let name = if ordering == Ordering::RN {
            wsx_rn_kernel_name(self.field, self.form)
        } else {
            kernel_name(kernel, self.field, self.form)
        };
        let f = self.gpu.function(&name)?;
        let tw_ptr = self.twiddle_table(direction);
        let dependent = dependent && self.dependent_launch;
        let params = NttParams {
            order: order_code(ordering),
            dependent: dependent as u32,
            ..self.params(tw_ptr, data, batch, log_n, scale_log_n, post)?
        };
        let tiles = ((batch << log_n) + (1 << TILE_LOG) - 1) >> TILE_LOG;
        if tiles == 0 {
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid_dim: (tiles.min(self.max_grid) as u32, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the kernel takes one NttParams by value; `data` holds batch << log_n elements
        // (checked by the callers) and the tables hold the entries the kernel indexes. With
        // `dependent` the WSX kernel waits for the previous grid before its first global access.
        unsafe { zkntt_gpu::launch::launch(stream, &f, cfg, &params, dependent) }?;
        Ok(())
    }

    /// Transforms every consecutive 2^log_n elements of `data` in place, asynchronously on the
    /// GPU's stream. Elements must be canonical (below q; the lazy forms on Q28 also take
    /// [0, 2q)); others give unspecified values, never memory errors. With [`Kernel::Wsx`],
    /// single transforms and small batches of 2^13..2^16 take one cluster launch on sm_90
    /// ([`SmallNtt::takes_cluster`]). Other sizes
    /// above 2^12 use the 2-D decomposition with an internal scratch buffer: with
    /// [`Kernel::Wsx`] two passes (into the scratch and back; from 2^22 three, the rows in place in
    /// the scratch and a transpose back, where NN's rows kernel does not take the rows:
    /// [`SmallNtt::takes_nn_rows`], on sm_90 2^22 alone), with the others five
    /// passes and a final copy back ([`SmallNtt::run_into`] avoids the copy).
    pub fn run(
        &self,
        data: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        self.run_ordered(data, log_n, direction, kernel, Ordering::NN)
    }

    /// [`SmallNtt::run`] in an ordering: [`Ordering::NN`], [`Ordering::NR`] (natural order in,
    /// bit-reversed out: output k of each transform at index rev(k), the low log_n bits
    /// reversed) or [`Ordering::RN`] (input element n at index rev(n), natural order out: the
    /// inverse of NR, so a forward NR and an inverse RN need no reordering between them).
    /// NR: the cluster kernel stores whole segments and the 2-D path's stores are contiguous in
    /// both passes (its rows in place on the tile kernel, above 2^24 on its wide variant, so no
    /// scratch), so NR is the fastest order from 2^17 (`benches/results/h100.md`). RN: one tile
    /// launch to 2^12, one
    /// cluster launch to 2^16 where the batch is small, then two passes: the rows of the input
    /// as it lies (panels below 2^16, in place on the tile kernel at 2^16..2^24 with no
    /// scratch; above, 2^13/2^14-point rows in place on the wide tile kernel), then the columns
    /// in panels. NR and RN
    /// need [`Kernel::Wsx`] (other kernels: [`Error::OrderingUnsupported`]).
    pub fn run_ordered(
        &self,
        data: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        ordering: Ordering,
    ) -> Result<()> {
        let batch = self.check_for(data.len(), log_n, kernel)?;
        check_ordering(kernel, ordering)?;
        let stream = self.gpu.stream().clone();
        if log_n <= TILE_LOG || kernel == Kernel::Wsx {
            let len = data.len();
            let (d, _g) = data.device_ptr_mut(&stream);
            return self.run_at(&stream, d, len, log_n, batch, direction, kernel, ordering);
        }
        let mut scratch = self.scratch(data.len())?;
        let (out, _) = scratch.as_mut().ok_or(Error::LengthMismatch {
            expected: data.len(),
            got: 0,
        })?;
        let mut view = out.slice_mut(0..data.len());
        self.two_d(&stream, data, &mut view, log_n, batch, direction, kernel)?;
        stream.memcpy_dtod(&view, data).during("copy back")?;
        Ok(())
    }

    /// Like [`SmallNtt::run`] but out of place: the transforms of `input` land in `output`
    /// (same length). `input` is overwritten (it is the 2-D decomposition's scratch).
    pub fn run_into(
        &self,
        input: &mut CudaSlice<u32>,
        output: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
    ) -> Result<()> {
        self.run_into_ordered(input, output, log_n, direction, kernel, Ordering::NN)
    }

    /// [`SmallNtt::run_ordered`] with [`Kernel::Wsx`] on memory given by its address, as
    /// sppark's API takes it: `len` words at `data` on this GPU, transformed in place on the GPU's
    /// stream. The same kernels, without the event calls cudarc makes on a tracked `CudaSlice`
    /// (a wait and a record, microseconds of host time in a lone small transform).
    ///
    /// # Safety
    ///
    /// `data` must be the address of at least `len` `u32` words of this GPU's memory whose
    /// earlier writes are complete or ordered before the GPU's stream ([`Gpu::stream`]; this call
    /// waits for nothing), and which no other work reads or writes until that stream has
    /// completed this call's work. A null or misaligned address is an error, not a launch.
    pub unsafe fn run_raw(
        &self,
        data: u64,
        len: usize,
        log_n: u32,
        direction: Direction,
        ordering: Ordering,
    ) -> Result<()> {
        let batch = self.check_for(len, log_n, Kernel::Wsx)?;
        check_ordering(Kernel::Wsx, ordering)?;
        if data == 0 || data % 4 != 0 {
            return Err(Error::BadAddress { address: data });
        }
        let stream = self.gpu.stream().clone();
        self.run_at(
            &stream,
            data,
            len,
            log_n,
            batch,
            direction,
            Kernel::Wsx,
            ordering,
        )
    }

    /// In place at device address `d` (`len` words, `batch` transforms): one tile launch, one
    /// cluster launch, or (WSX) the 2-D passes (through the scratch where they need it). The callers have
    /// checked `ordering` against `kernel` (`check_ordering`).
    #[allow(clippy::too_many_arguments)]
    fn run_at(
        &self,
        stream: &Arc<CudaStream>,
        d: u64,
        len: usize,
        log_n: u32,
        batch: u64,
        direction: Direction,
        kernel: Kernel,
        ordering: Ordering,
    ) -> Result<()> {
        if batch == 0 {
            return Ok(());
        }
        if log_n <= TILE_LOG {
            return self.launch(
                stream,
                kernel,
                d,
                batch,
                log_n,
                direction,
                (direction == Direction::Inverse).then_some(log_n),
                None,
                ordering,
                false,
            );
        }
        if self.takes_cluster(log_n, batch, kernel) {
            return self.cluster(stream, d, d, log_n, batch, direction, ordering);
        }
        if kernel != Kernel::Wsx {
            return Err(Error::NoFormKernel {
                kernel: kernel.name(),
                form: "two panel passes",
                available: Kernel::Wsx.name(),
            });
        }
        if !two_d::needs_mid(log_n, ordering) {
            return self.two_d_panels(stream, d, d, d, log_n, batch, direction, ordering);
        }
        // Through the scratch and back into `d` (NN: columns, then rows, or rows in place in the
        // scratch and then a transpose back; RN: rows, then columns): no copy. The guard is held
        // while the passes are queued (a larger scratch replaces this one stream-ordered).
        let scratch = self.scratch(len)?;
        let m = scratch
            .as_ref()
            .map(|(_, ptr)| *ptr)
            .ok_or(Error::LengthMismatch {
                expected: len,
                got: 0,
            })?;
        self.two_d_panels(stream, d, m, d, log_n, batch, direction, ordering)
    }

    /// [`SmallNtt::run_into`] in an ordering, as [`SmallNtt::run_ordered`].
    pub fn run_into_ordered(
        &self,
        input: &mut CudaSlice<u32>,
        output: &mut CudaSlice<u32>,
        log_n: u32,
        direction: Direction,
        kernel: Kernel,
        ordering: Ordering,
    ) -> Result<()> {
        let batch = self.check_for(input.len(), log_n, kernel)?;
        check_ordering(kernel, ordering)?;
        if output.len() != input.len() {
            return Err(Error::LengthMismatch {
                expected: input.len(),
                got: output.len(),
            });
        }
        let stream = self.gpu.stream().clone();
        if log_n <= TILE_LOG {
            stream.memcpy_dtod(input, output).during("copy")?;
            return self.run_ordered(output, log_n, direction, kernel, ordering);
        }
        if self.takes_cluster(log_n, batch, kernel) {
            let (i, _g1) = input.device_ptr(&stream);
            let (o, _g2) = output.device_ptr_mut(&stream);
            return self.cluster(&stream, i, o, log_n, batch, direction, ordering);
        }
        if kernel == Kernel::Wsx {
            // The first pass in place in `input` (NR's straight into `output`, its rows then in
            // place there), the rest into `output`.
            let (i, _g1) = input.device_ptr_mut(&stream);
            let (o, _g2) = output.device_ptr_mut(&stream);
            return self.two_d_panels(&stream, i, i, o, log_n, batch, direction, ordering);
        }
        let mut view = output.slice_mut(..);
        self.two_d(&stream, input, &mut view, log_n, batch, direction, kernel)
    }

    /// The scratch of at least `len` words and its address (taken once: the scratch is used on
    /// the GPU's stream only, so it needs no event calls).
    fn scratch(&self, len: usize) -> Result<MutexGuard<'_, Option<Scratch>>> {
        let mut s = lock(&self.scratch);
        if s.as_ref().is_none_or(|(b, _)| b.len() < len) {
            *s = None;
            let stream = self.gpu.stream();
            // SAFETY: scratch is always written (by a transpose) before it is read.
            let buf = unsafe { stream.alloc::<u32>(len) }.map_err(|e| oom(e, len))?;
            let ptr = buf.device_ptr(stream).0;
            *s = Some((buf, ptr));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_match_the_c_struct() {
        // 4 pointers + u64 + 8 x u32, no padding: 72 bytes, as in ntt.cuh.
        assert_eq!(std::mem::size_of::<NttParams>(), 72);
        assert_eq!(std::mem::align_of::<NttParams>(), 8);
    }

    #[test]
    fn ablations_exist_in_montgomery_lazy_only() {
        for form in ModMulForm::ALL {
            assert!(Kernel::ALL.iter().all(|k| k.has_form(form)));
            assert_eq!(
                Kernel::WsxHalf.has_form(form),
                form == ModMulForm::MontgomeryLazy
            );
        }
        // 2 kernels x 3 fields x 7 forms, the ablation in one form per field, the WSX kernel's
        // RN symbol, the panel (NN, NR, RN, each one- and two-group), cluster and NN rows
        // kernels, BabyBear's wide tile kernels (NR, RN) and NN's wide rows.
        assert_eq!(kernel_names().count(), 2 * 3 * 7 + 3 + 9 * 3 * 7 + 3 * 7);
    }
}
