//! `zkntt bench fft`: the fp16 Tensor Core FFT (`cuda/small/fft_tc.cu`) beside cuFFT in the same
//! process, same interleaved layout and batch: cuFFT fp16 and fp32 through
//! `cufftXtMakePlanMany`/`cufftXtExec`, resolved at run time from libcufft (nothing of cuFFT is
//! linked at build time, so machines without it still build and run everything else).
//! Times are CUDA-event medians after warm-up, forward transforms, device-resident.
//!
//! `--json FILE` writes every number of the run and `--plot FILE.svg` an SVG of them (module
//! `plot`; `zkntt plot` draws it again from the JSON with no GPU): time against size for zkntt,
//! cuFFT fp16 and fp32 beside the copy of the same bytes, and cuFFT / zkntt. Sizes and output files
//! are checked before the GPU is opened; a progress bar shows on a terminal.

use ark_std::rand::{Rng, SeedableRng, rngs::StdRng};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use serde_json::{Value, json};
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::Arc;
use zkntt_gpu::timing::median_ms;
use zkntt_small::Direction;
use zkntt_small::fft::TcFft;
use zkntt_small::fft::half::{f16_to_f32, f32_to_f16};
use zkntt_small::fft::model::{self, C};

type AnyError = Box<dyn std::error::Error>;

#[derive(clap::Args, Debug)]
pub struct FftArgs {
    /// Smallest log2 size.
    #[arg(long, default_value_t = 4)]
    min_log: u32,
    /// Largest log2 size (at most 20; above 12 the four-step split: one launch to 2^15 where the GPU
    /// gives a block the shared memory, else two, three from 2^18).
    #[arg(long, default_value_t = 20)]
    max_log: u32,
    /// Above 2^12, every size in range instead of 2^14, 2^16 and 2^20 only.
    #[arg(long)]
    every_size: bool,
    /// Bytes of fp16 complex input per size (the batch fills it).
    #[arg(long, default_value_t = 512 << 20)]
    bytes: usize,
    /// Timed launches per measurement (median reported).
    #[arg(long, default_value_t = 20)]
    iters: usize,
    /// Untimed launches first.
    #[arg(long, default_value_t = 3)]
    warmup: usize,
    /// Time inverse transforms (e^{+2 pi i nk/N}, unnormalised, as cuFFT's CUFFT_INVERSE) instead
    /// of forward ones, on the same input; errors against the f64 inverse.
    #[arg(long)]
    inverse: bool,
    /// Skip cuFFT (also skipped, with a note, where libcufft cannot be loaded).
    #[arg(long)]
    no_cufft: bool,
    /// Above 2^12, also time each launch of the plan by itself (CUDA-event medians, one line
    /// per size after the table row).
    #[arg(long)]
    passes: bool,
    /// Also time each of these pieces of work per block for every launch
    /// (`TcFft::set_work_per_block`; 0 = persistent grids), comma-separated: one more line per
    /// size (same run, same buffers). The table uses the tuned defaults.
    #[arg(long, value_delimiter = ',')]
    work_per_block: Vec<u32>,
    /// Every number of the run as JSON into FILE (`zkntt plot --json FILE` plots it again).
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// An SVG plot into FILE: time against size for zkntt, cuFFT fp16 and fp32 (when loaded)
    /// beside the copy of the same bytes, and the ratios cuFFT / zkntt.
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    #[command(flatten)]
    device: crate::args::DeviceArg,
}

/// One size of the table: times in ms, errors as relative L2 against the f64 reference; cuFFT's
/// None where it was not run.
#[derive(Debug, Clone, PartialEq)]
pub struct FftRow {
    pub log_n: u32,
    pub batch: usize,
    pub zkntt_ms: f64,
    pub err_zkntt: f64,
    pub cufft16: Option<(f64, f64)>,
    pub cufft32: Option<(f64, f64)>,
    /// --work-per-block: (pieces of work per block, ms).
    pub work_per_block: Vec<(u32, f64)>,
    /// --passes: each launch of the plain four-step split by itself, ms (where the rows run in
    /// bands, the banded plan's two launches after them).
    pub passes_ms: Vec<f64>,
}

/// What `zkntt bench fft` measured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FftRun {
    /// The direction timed.
    pub dir: Direction,
    /// fp16 complex input bytes per size.
    pub bytes: usize,
    pub iters: usize,
    pub warmup: usize,
    pub seed: u64,
    /// The device-to-device copy of `bytes`, ms.
    pub copy_ms: f64,
    /// Where libcufft was loaded from; None when not run.
    pub cufft: Option<String>,
    pub rows: Vec<FftRow>,
}

/// The `--json` document of `zkntt bench fft` (`"kind": "fft"`).
pub fn fft_json(gpu: &str, timestamp: &str, run: &FftRun) -> Value {
    let gbps = |ms: f64| 2.0 * run.bytes as f64 / (ms * 1e-3) / 1e9;
    json!({
        "kind": "fft",
        "gpu": gpu,
        "timestamp": timestamp,
        "bytes": run.bytes,
        "iters": run.iters,
        "warmup": run.warmup,
        "input_seed": run.seed,
        "direction": dir_name(run.dir),
        "timing": format!("device-resident: median of CUDA-event times, {} transforms of the whole batch", dir_name(run.dir)),
        "ratio": "cufft16_ms / zkntt_ms (above 1: zkntt faster)",
        "error": "relative L2 against the f64 DFT (above 2^12 the f64 radix-2 FFT) of the same fp16 inputs",
        "copy": json!({"ms": run.copy_ms, "gbps": gbps(run.copy_ms)}),
        "cufft": run.cufft,
        "rows": run.rows.iter().map(|r| json!({
            "log_n": r.log_n,
            "size": 1u64 << r.log_n,
            "batch": r.batch,
            "zkntt_ms": r.zkntt_ms,
            "gbps": gbps(r.zkntt_ms),
            "of_copy": run.copy_ms / r.zkntt_ms,
            "cufft16_ms": r.cufft16.map(|c| c.0),
            "cufft32_ms": r.cufft32.map(|c| c.0),
            "vs_cufft16": r.cufft16.map(|c| c.0 / r.zkntt_ms),
            "err_zkntt": r.err_zkntt,
            "err_cufft16": r.cufft16.map(|c| c.1),
            "err_cufft32": r.cufft32.map(|c| c.1),
            "work_per_block": r.work_per_block.iter().map(|&(k, ms)| json!({"k": k, "ms": ms})).collect::<Vec<_>>(),
            "passes_ms": r.passes_ms,
        })).collect::<Vec<_>>(),
    })
}

/// "forward" or "inverse", as the table and the JSON say it.
pub fn dir_name(dir: Direction) -> &'static str {
    match dir {
        Direction::Forward => "forward",
        Direction::Inverse => "inverse",
    }
}

// cuFFT's C API, the part used here (cufft.h, cufftXt.h, library_types.h).
type Handle = i32;
const CUFFT_SUCCESS: i32 = 0;
const CUFFT_FORWARD: i32 = -1;
const CUFFT_INVERSE: i32 = 1;
const CUDA_C_32F: i32 = 4;
const CUDA_C_16F: i32 = 6;
type CreateFn = unsafe extern "C" fn(*mut Handle) -> i32;
type DestroyFn = unsafe extern "C" fn(Handle) -> i32;
type SetStreamFn = unsafe extern "C" fn(Handle, *mut c_void) -> i32;
#[allow(clippy::type_complexity)]
type XtMakePlanManyFn = unsafe extern "C" fn(
    Handle,
    i32,
    *mut i64,
    *mut i64,
    i64,
    i64,
    i32,
    *mut i64,
    i64,
    i64,
    i32,
    i64,
    *mut usize,
    i32,
) -> i32;
type XtExecFn = unsafe extern "C" fn(Handle, *mut c_void, *mut c_void, i32) -> i32;

/// libcufft, opened at run time, with the five entry points the bench calls.
struct CuFft {
    create: CreateFn,
    destroy: DestroyFn,
    set_stream: SetStreamFn,
    make_plan: XtMakePlanManyFn,
    exec: XtExecFn,
    path: String,
    _lib: libloading::Library,
}

impl CuFft {
    /// $ZKNTT_CUFFT, then the usual sonames on the loader's path and in /usr/local/cuda.
    fn open() -> Result<Self, String> {
        let mut candidates: Vec<String> = std::env::var("ZKNTT_CUFFT").into_iter().collect();
        for dir in [
            "",
            "/usr/local/cuda/lib64/",
            "/usr/local/cuda/targets/x86_64-linux/lib/",
        ] {
            for so in [
                "libcufft.so",
                "libcufft.so.12",
                "libcufft.so.13",
                "libcufft.so.11",
            ] {
                candidates.push(format!("{dir}{so}"));
            }
        }
        let mut last = String::from("no candidates");
        for path in candidates {
            // SAFETY: loading libcufft runs its initialisers, which only register the library.
            match unsafe { libloading::Library::new(&path) } {
                Ok(lib) => return Self::resolve(lib, path).map_err(|e| e.to_string()),
                Err(e) => last = e.to_string(),
            }
        }
        Err(last)
    }

    fn resolve(lib: libloading::Library, path: String) -> Result<Self, libloading::Error> {
        // SAFETY: the types are those of cufft.h / cufftXt.h (cufftHandle = int, enums = int,
        // long long = i64, size_t = usize, cudaStream_t = pointer).
        unsafe {
            Ok(Self {
                create: *lib.get::<CreateFn>(b"cufftCreate\0")?,
                destroy: *lib.get::<DestroyFn>(b"cufftDestroy\0")?,
                set_stream: *lib.get::<SetStreamFn>(b"cufftSetStream\0")?,
                make_plan: *lib.get::<XtMakePlanManyFn>(b"cufftXtMakePlanMany\0")?,
                exec: *lib.get::<XtExecFn>(b"cufftXtExec\0")?,
                path,
                _lib: lib,
            })
        }
    }
}

fn cufft_ok(r: i32, what: &str) -> Result<(), AnyError> {
    if r == CUFFT_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what}: cufftResult {r}").into())
    }
}

/// One batched 1-D C2C plan of contiguous transforms on `stream`; destroyed on drop.
struct Plan<'a> {
    lib: &'a CuFft,
    handle: Handle,
}

impl<'a> Plan<'a> {
    fn new(
        lib: &'a CuFft,
        stream: &Arc<CudaStream>,
        log_n: u32,
        batch: usize,
        ty: i32,
    ) -> Result<Self, AnyError> {
        let mut handle = 0;
        // SAFETY: out-pointer to a cufftHandle.
        cufft_ok(unsafe { (lib.create)(&mut handle) }, "cufftCreate")?;
        let plan = Self { lib, handle };
        let mut n = [1i64 << log_n];
        let mut work = 0usize;
        // SAFETY: rank 1, n points to one size; null embeds select the contiguous layout (strides
        // and distances ignored); the stream outlives the plan (both live through the bench).
        unsafe {
            cufft_ok(
                (lib.set_stream)(handle, stream.cu_stream() as *mut c_void),
                "cufftSetStream",
            )?;
            cufft_ok(
                (lib.make_plan)(
                    handle,
                    1,
                    n.as_mut_ptr(),
                    std::ptr::null_mut(),
                    1,
                    1 << log_n,
                    ty,
                    std::ptr::null_mut(),
                    1,
                    1 << log_n,
                    ty,
                    batch as i64,
                    &mut work,
                    ty,
                ),
                "cufftXtMakePlanMany",
            )?;
        }
        Ok(plan)
    }

    /// The transform in `dir` (the inverse unnormalised), `input` to `output`, both holding the
    /// plan's batch in its type.
    fn exec<T>(
        &self,
        stream: &Arc<CudaStream>,
        input: &CudaSlice<T>,
        output: &mut CudaSlice<T>,
        dir: Direction,
    ) -> Result<(), AnyError> {
        let (i, _gi) = input.device_ptr(stream);
        let (o, _go) = output.device_ptr_mut(stream);
        // SAFETY: both buffers hold the batch the plan was made for, on the plan's stream.
        cufft_ok(
            unsafe {
                (self.lib.exec)(
                    self.handle,
                    i as *mut c_void,
                    o as *mut c_void,
                    match dir {
                        Direction::Forward => CUFFT_FORWARD,
                        Direction::Inverse => CUFFT_INVERSE,
                    },
                )
            },
            "cufftXtExec",
        )
    }
}

impl Drop for Plan<'_> {
    fn drop(&mut self) {
        // SAFETY: the handle came from cufftCreate and is destroyed once.
        unsafe { (self.lib.destroy)(self.handle) };
    }
}

/// Relative L2 error of the first `count` transforms of `got` (interleaved f32 pairs) against
/// the f64 DFT in `dir` of the same fp16 inputs.
fn accuracy(got: &[f32], x: &[C<f64>], log_n: u32, dir: Direction) -> f64 {
    // The O(N^2) DFT up to one launch's sizes, the f64 radix-2 FFT (checked against it) above.
    let want = if log_n <= TcFft::ONE_LAUNCH_MAX_LOG {
        model::dft(x, log_n, dir)
    } else {
        model::reference_fft(x, log_n, dir)
    };
    let got: Vec<C<f64>> = got
        .chunks_exact(2)
        .take(x.len())
        .map(|p| (p[0] as f64, p[1] as f64))
        .collect();
    model::rel_l2(&got, &want)
}

pub fn fft(args: FftArgs) -> Result<(), AnyError> {
    if args.min_log < TcFft::MIN_LOG || args.max_log > TcFft::MAX_LOG || args.min_log > args.max_log
    {
        return Err(format!(
            "sizes 2^{}..2^{} outside 2^{}..2^{}",
            args.min_log,
            args.max_log,
            TcFft::MIN_LOG,
            TcFft::MAX_LOG
        )
        .into());
    }
    let dir = if args.inverse {
        Direction::Inverse
    } else {
        Direction::Forward
    };
    // The batch fills --bytes in whole transforms of the largest size (2^20 fp16 complex: 4 MiB).
    if args.bytes / 4 < 1 << TcFft::MAX_LOG {
        return Err(format!(
            "--bytes {} is below one transform of 2^{} (4 MiB of fp16 complex)",
            args.bytes,
            TcFft::MAX_LOG
        )
        .into());
    }
    if args.iters == 0 {
        return Err("--iters 0: at least one timed launch is needed".into());
    }
    crate::args::check_outputs(args.json.as_deref(), args.plot.as_deref())?;
    let gpu = args.device.open()?;
    let info = gpu.info()?;
    println!("{info}");
    let s = gpu.stream().clone();
    let elems = (args.bytes / 4) >> TcFft::MAX_LOG << TcFft::MAX_LOG;
    let bytes = elems * 4;

    // The copy bandwidth, read + write, measured now on the same number of bytes.
    let copy_ms = {
        let src = s.alloc_zeros::<u16>(2 * elems)?;
        let mut dst = s.alloc_zeros::<u16>(2 * elems)?;
        median_ms(&s, args.warmup, args.iters, || -> Result<(), AnyError> {
            Ok(s.memcpy_dtod(&src, &mut dst)?)
        })?
    };
    let copy_bw = 2.0 * bytes as f64 / (copy_ms * 1e-3);
    println!(
        "device-to-device copy of {} MiB: {copy_ms:.3} ms = {:.0} GB/s (read + write)",
        bytes >> 20,
        copy_bw / 1e9
    );

    let cufft = if args.no_cufft {
        None
    } else {
        match CuFft::open() {
            Ok(c) => {
                println!("cuFFT: {}", c.path);
                Some(c)
            }
            Err(e) => {
                println!("cuFFT not loaded ({e}): zkntt only");
                None
            }
        }
    };

    // One fresh random input for every size: fp16 bits, and the same values as f32 for cuFFT fp32.
    let seed: u64 = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)?
        .as_nanos() as u64;
    let mut rng = StdRng::seed_from_u64(seed);
    let host: Vec<u16> = (0..2 * elems)
        .map(|_| f32_to_f16(rng.gen_range(-1.0f32..1.0)))
        .collect();
    let input = s.clone_htod(&host)?;
    let mut output = s.alloc_zeros::<u16>(2 * elems)?;
    let fft = TcFft::new(&gpu)?;
    println!(
        "fp16 complex FFT, {}, {} MiB in and out per size (interleaved half2), median of {} after {} warm-up; input seed {seed}",
        dir_name(dir),
        bytes >> 20,
        args.iters,
        args.warmup
    );
    println!(
        "GB/s counts read + write of the fp16 data (once, whatever the launches); 'of copy' = copy time / FFT time; 'vs cuFFT16' = cuFFT fp16 time / zkntt time (> 1: zkntt faster); err = relative L2 against the f64 DFT (above 2^12 the f64 radix-2 FFT) of the same fp16 inputs"
    );
    println!(
        "{:>6} {:>9} {:>9} {:>7} {:>7} | {:>10} {:>10} {:>10} | {:>9} {:>9} {:>9}",
        "N",
        "batch",
        "zkntt ms",
        "GB/s",
        "of copy",
        "cuFFT16 ms",
        "vs cuFFT16",
        "cuFFT32 ms",
        "err zkntt",
        "err cu16",
        "err cu32"
    );
    let poison = vec![0x7e00u16; 2 * elems];
    let mut buf32 = match cufft {
        Some(_) => {
            let host32: Vec<f32> = host.iter().map(|&h| f16_to_f32(h)).collect();
            Some((s.clone_htod(&host32)?, s.alloc_zeros::<f32>(2 * elems)?))
        }
        None => None,
    };
    let sizes: Vec<u32> = (args.min_log..=args.max_log)
        .filter(|&l| args.every_size || l <= TcFft::ONE_LAUNCH_MAX_LOG || [14, 16, 20].contains(&l))
        .collect();
    let mut run = FftRun {
        dir,
        bytes,
        iters: args.iters,
        warmup: args.warmup,
        seed,
        copy_ms,
        cufft: cufft.as_ref().map(|c| c.path.clone()),
        rows: Vec::new(),
    };
    let bar = crate::progress::bar(sizes.len() as u64, "sizes");
    for log_n in sizes {
        bar.0.set_message(format!("2^{log_n}"));
        let n = 1usize << log_n;
        let batch = elems / n;
        // Accuracy on the first transforms (the O(N^2) reference on about 2^16 points).
        let check = (1usize << 16 >> log_n).clamp(1, 64).min(batch);
        let x: Vec<C<f64>> = host[..2 * check * n]
            .chunks_exact(2)
            .map(|p| (f16_to_f32(p[0]) as f64, f16_to_f32(p[1]) as f64))
            .collect();
        let half_to_f32 =
            |v: &[u16]| -> Vec<f32> { v.iter().map(|&h| f16_to_f32(h)).collect::<Vec<f32>>() };

        s.memcpy_htod(&poison, &mut output)?;
        let ms = median_ms(&s, args.warmup, args.iters, || {
            fft.run(&input, &mut output, log_n, dir)
        })?;
        let got = s.clone_dtoh(&output.slice(..2 * check * n))?;
        s.synchronize()?;
        let err = accuracy(&half_to_f32(&got), &x, log_n, dir);
        let gbs = 2.0 * bytes as f64 / (ms * 1e-3) / 1e9;

        let mut cu16 = (f64::NAN, f64::NAN);
        let mut cu32 = (f64::NAN, f64::NAN);
        let mut row = FftRow {
            log_n,
            batch,
            zkntt_ms: ms,
            err_zkntt: err,
            cufft16: None,
            cufft32: None,
            work_per_block: Vec::new(),
            passes_ms: Vec::new(),
        };
        if let Some(lib) = &cufft {
            s.memcpy_htod(&poison, &mut output)?;
            let plan = Plan::new(lib, &s, log_n, batch, CUDA_C_16F)?;
            let t = median_ms(&s, args.warmup, args.iters, || {
                plan.exec(&s, &input, &mut output, dir)
            })?;
            let got = s.clone_dtoh(&output.slice(..2 * check * n))?;
            s.synchronize()?;
            cu16 = (t, accuracy(&half_to_f32(&got), &x, log_n, dir));
            drop(plan);

            // fp32 on the same values, same batch (twice the bytes).
            let (in32, out32) = buf32.as_mut().ok_or("fp32 buffers")?;
            let plan = Plan::new(lib, &s, log_n, batch, CUDA_C_32F)?;
            let t = median_ms(&s, args.warmup, args.iters, || {
                plan.exec(&s, in32, out32, dir)
            })?;
            let got = s.clone_dtoh(&out32.slice(..2 * check * n))?;
            s.synchronize()?;
            cu32 = (t, accuracy(&got, &x, log_n, dir));
            (row.cufft16, row.cufft32) = (Some(cu16), Some(cu32));
        }
        bar.println(format!(
            "{n:>6} {batch:>9} {ms:>9.3} {gbs:>7.0} {:>7.2} | {:>10.3} {:>10.2} {:>10.3} | {err:>9.2e} {:>9.2e} {:>9.2e}",
            copy_ms / ms,
            cu16.0,
            cu16.0 / ms,
            cu32.0,
            cu16.1,
            cu32.1
        ));
        if !args.work_per_block.is_empty() {
            let mut each = Vec::new();
            for &k in &args.work_per_block {
                fft.set_work_per_block(Some(k));
                let t = median_ms(&s, args.warmup, args.iters, || {
                    fft.run(&input, &mut output, log_n, dir)
                })?;
                each.push(format!("k={k} {t:.3} ({:.2} of copy)", copy_ms / t));
                row.work_per_block.push((k, t));
            }
            fft.set_work_per_block(None);
            bar.println(format!("{n:>6}   work per block: {}", each.join(", ")));
        }
        // Where the fused launches take the size (one block per transform, rows in bands), the
        // passes are the plain four-step split's launches they replace (timed with them switched
        // off), so both show in one run.
        let one_block = fft.one_block(log_n);
        let banded = fft.banded(log_n);
        if args.passes && (one_block || fft.passes(log_n) > 1) {
            // Each launch of the plan `fused` chooses, timed by itself.
            let mut each = Vec::new();
            let mut time_passes = |fused: bool| {
                fft.set_fused(fused);
                for pass in 0..fft.passes(log_n) {
                    each.push(median_ms(&s, args.warmup, args.iters, || {
                        fft.run_pass(&input, &mut output, log_n, dir, pass)
                    }));
                }
                fft.set_fused(true);
            };
            time_passes(false);
            if banded {
                // And the banded plan's own two launches.
                time_passes(true);
            }
            let each = each
                .into_iter()
                .collect::<Result<Vec<f64>, zkntt_small::Error>>()?;
            let line = |each: &[f64]| {
                let parts: Vec<String> = each.iter().map(|t| format!("{t:.3}")).collect();
                let of_copy: Vec<String> =
                    each.iter().map(|t| format!("{:.2}", copy_ms / t)).collect();
                let sum = each.iter().sum::<f64>();
                (
                    format!(
                        "{} (sum {sum:.3}; each of copy: {})",
                        parts.join(" + "),
                        of_copy.join(" / ")
                    ),
                    sum,
                )
            };
            let (plain, sum) = line(&each[..each.len() - if banded { 2 } else { 0 }]);
            let replaced = if one_block {
                format!("; replaced by one block per transform, {:.2}x", sum / ms)
            } else if banded {
                let (fused, _) = line(&each[each.len() - 2..]);
                format!("; rows in bands: {fused}, {:.2}x", sum / ms)
            } else {
                String::new()
            };
            bar.println(format!("{n:>6}   passes ms: {plain}{replaced}"));
            row.passes_ms = each;
        }
        bar.0.inc(1);
        run.rows.push(row);
    }
    drop(bar);
    let doc = fft_json(&info.name, &crate::bench_matrix::now(), &run);
    crate::plot::save_outputs(&doc, args.json.as_deref(), args.plot.as_deref())
}
