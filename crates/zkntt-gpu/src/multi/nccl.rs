//! NCCL, loaded at run time: the few calls the split NTT needs (communicators over the GPUs of
//! this process, grouped point-to-point sends and receives).
//!
//! Our own thin binding rather than cudarc's `nccl` module: cudarc looks only for `libnccl.so`
//! and CUDA-versioned names, while the `nvidia-nccl-cu13` wheel (the NCCL pinned to the same CUDA
//! 13.0 as the compiler) ships `libnccl.so.2`; and its group guard panics on a failed
//! `ncclGroupEnd`, where we return an error. Where the library is looked for, in order:
//! `$ZKNTT_NCCL` (the file), `libnccl.so.2` / `libnccl.so` on the loader's path
//! (`LD_LIBRARY_PATH`), then `nvidia/nccl/lib` and `nvidia/cu13/lib` under
//! `$ZKNTT_CUDA_TOOLCHAIN` and `.toolchain/` (a `pip install --target` folder of the wheel).

use crate::{Error, Result};
use std::ffi::{CStr, c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

type NcclResult = c_int;
type RawComm = *mut c_void;
/// `ncclInt8`: the exchange counts bytes, so no other NCCL data type is needed.
const NCCL_INT8: c_int = 0;

/// The functions used, resolved once.
struct Api {
    get_version: unsafe extern "C" fn(*mut c_int) -> NcclResult,
    get_error_string: unsafe extern "C" fn(NcclResult) -> *const c_char,
    comm_init_all: unsafe extern "C" fn(*mut RawComm, c_int, *const c_int) -> NcclResult,
    comm_destroy: unsafe extern "C" fn(RawComm) -> NcclResult,
    group_start: unsafe extern "C" fn() -> NcclResult,
    group_end: unsafe extern "C" fn() -> NcclResult,
    #[allow(clippy::type_complexity)]
    send: unsafe extern "C" fn(
        *const c_void,
        usize,
        c_int,
        c_int,
        RawComm,
        *mut c_void,
    ) -> NcclResult,
    #[allow(clippy::type_complexity)]
    recv:
        unsafe extern "C" fn(*mut c_void, usize, c_int, c_int, RawComm, *mut c_void) -> NcclResult,
    /// Keeps the functions above valid.
    _lib: libloading::Library,
    path: String,
}

/// The loaded library: where it came from and its version.
#[derive(Clone)]
pub struct Nccl {
    api: Arc<Api>,
}

impl std::fmt::Debug for Nccl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nccl")
            .field("path", &self.api.path)
            .field("version", &self.version())
            .finish()
    }
}

/// The candidates, in the order of the module's documentation.
fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = std::env::var_os("ZKNTT_NCCL") {
        out.push(PathBuf::from(p));
        return out; // an explicit choice is the only one tried
    }
    out.extend(["libnccl.so.2", "libnccl.so"].map(PathBuf::from));
    let roots = std::env::var_os("ZKNTT_CUDA_TOOLCHAIN")
        .map(PathBuf::from)
        .into_iter()
        .chain([PathBuf::from(".toolchain")]);
    for root in roots {
        for sub in ["nvidia/nccl/lib", "nvidia/cu13/lib"] {
            out.push(root.join(sub).join("libnccl.so.2"));
        }
    }
    out
}

impl Nccl {
    /// The library, loaded on first use (later calls return the same one or the same error).
    /// `Error::NcclUnavailable` says where it looked and how to install it.
    pub fn load() -> Result<Self> {
        static LOADED: OnceLock<std::result::Result<Nccl, String>> = OnceLock::new();
        LOADED
            .get_or_init(Self::open)
            .clone()
            .map_err(Error::NcclUnavailable)
    }

    fn open() -> std::result::Result<Self, String> {
        let tried = candidates();
        let mut errors = Vec::new();
        for path in &tried {
            // SAFETY: loading NCCL runs its initialisers, which only set up the library.
            match unsafe { libloading::Library::new(path) } {
                Ok(lib) => {
                    return Self::resolve(lib, path)
                        .map_err(|e| format!("{}: {e}", path.display()));
                }
                Err(e) => errors.push(format!("{}: {e}", path.display())),
            }
        }
        Err(format!(
            "libnccl could not be loaded (tried {}); install NCCL for CUDA 13 with \
             `python3 -m pip install --target .toolchain nvidia-nccl-cu13` or point $ZKNTT_NCCL \
             at libnccl.so.2",
            errors.join("; ")
        ))
    }

    fn resolve(
        lib: libloading::Library,
        path: &std::path::Path,
    ) -> std::result::Result<Self, String> {
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol is NCCL's C function of that name, whose signature (NCCL
                // 2.x, unchanged since 2.7) is the field's type.
                *unsafe { lib.get($name) }.map_err(|e| e.to_string())?
            };
        }
        let api = Api {
            get_version: sym!(b"ncclGetVersion\0"),
            get_error_string: sym!(b"ncclGetErrorString\0"),
            comm_init_all: sym!(b"ncclCommInitAll\0"),
            comm_destroy: sym!(b"ncclCommDestroy\0"),
            group_start: sym!(b"ncclGroupStart\0"),
            group_end: sym!(b"ncclGroupEnd\0"),
            send: sym!(b"ncclSend\0"),
            recv: sym!(b"ncclRecv\0"),
            path: path.display().to_string(),
            _lib: lib,
        };
        Ok(Self { api: Arc::new(api) })
    }

    /// Where the library was loaded from.
    pub fn path(&self) -> &str {
        &self.api.path
    }

    /// NCCL's version code (e.g. 22805 for 2.28.5), or `None` if it will not say.
    pub fn version(&self) -> Option<i32> {
        let mut v: c_int = 0;
        // SAFETY: writes one int.
        (unsafe { (self.api.get_version)(&mut v) } == 0).then_some(v)
    }

    fn check(&self, code: NcclResult, op: &'static str) -> Result<()> {
        if code == 0 {
            return Ok(());
        }
        // SAFETY: NCCL returns a static string for every result code.
        let text = unsafe { CStr::from_ptr((self.api.get_error_string)(code)) }
            .to_string_lossy()
            .into_owned();
        Err(Error::Nccl { op, code, text })
    }
}

/// One communicator per GPU of this process, rank i on `ordinals[i]` (`ncclCommInitAll`).
pub(crate) struct Comms {
    nccl: Nccl,
    raw: Vec<RawComm>,
}

// SAFETY: NCCL communicators may be used from any thread as long as calls on one are not
// concurrent; `Comms` is only used through `&mut self` or inside one group call at a time (the
// split engine holds it behind a mutex).
unsafe impl Send for Comms {}

impl Comms {
    pub fn new(nccl: &Nccl, ordinals: &[usize]) -> Result<Self> {
        let devs: Vec<c_int> = ordinals.iter().map(|&o| o as c_int).collect();
        let mut raw = vec![std::ptr::null_mut(); devs.len()];
        // SAFETY: `raw` has room for one communicator per device in `devs`.
        let code = unsafe {
            (nccl.api.comm_init_all)(raw.as_mut_ptr(), devs.len() as c_int, devs.as_ptr())
        };
        nccl.check(code, "ncclCommInitAll")?;
        Ok(Self {
            nccl: nccl.clone(),
            raw,
        })
    }

    /// One all-to-all of equal chunks in a single group call: for every rank g and peer h,
    /// `sends[g] + h * chunk_bytes` goes to `recvs[h] + g * chunk_bytes`, each on its rank's
    /// stream (queued after the work already on it; the receives complete before work queued
    /// later on that stream starts).
    ///
    /// # Safety
    /// Every pointer is device memory of its rank's GPU holding `ranks * chunk_bytes` bytes, the
    /// streams are the ranks' streams (of the same devices), and nothing else writes the buffers
    /// until the streams have passed this point.
    pub unsafe fn all_to_all(
        &mut self,
        sends: &[u64],
        recvs: &[u64],
        streams: &[*mut c_void],
        chunk_bytes: usize,
    ) -> Result<()> {
        let api = &self.nccl.api;
        let k = self.raw.len();
        self.nccl
            .check(unsafe { (api.group_start)() }, "ncclGroupStart")?;
        let mut first_error = Ok(());
        'ranks: for g in 0..k {
            for h in 0..k {
                let off = (h * chunk_bytes) as u64;
                let code = unsafe {
                    (api.send)(
                        (sends[g] + off) as *const c_void,
                        chunk_bytes,
                        NCCL_INT8,
                        h as c_int,
                        self.raw[g],
                        streams[g],
                    )
                };
                if let Err(e) = self.nccl.check(code, "ncclSend") {
                    first_error = Err(e);
                    break 'ranks;
                }
                let off = (h * chunk_bytes) as u64;
                let code = unsafe {
                    (api.recv)(
                        (recvs[g] + off) as *mut c_void,
                        chunk_bytes,
                        NCCL_INT8,
                        h as c_int,
                        self.raw[g],
                        streams[g],
                    )
                };
                if let Err(e) = self.nccl.check(code, "ncclRecv") {
                    first_error = Err(e);
                    break 'ranks;
                }
            }
        }
        // The group is always closed, also after a failed call inside it.
        let ended = self
            .nccl
            .check(unsafe { (api.group_end)() }, "ncclGroupEnd");
        first_error.and(ended)
    }
}

impl Drop for Comms {
    fn drop(&mut self) {
        for &c in &self.raw {
            // SAFETY: each communicator came from ncclCommInitAll and is destroyed once; a
            // failure leaves nothing to do.
            let _ = unsafe { (self.nccl.api.comm_destroy)(c) };
        }
    }
}
