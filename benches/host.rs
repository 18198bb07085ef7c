//! `cargo bench --bench host`: what a host-to-host transform costs a prover's own parallel work.
//!
//! A prover calls `HostPipeline::ntt` from one thread while its other threads run rayon jobs (MSM
//! buckets, witness generation). This times such a job (field products over 2^22 elements on the
//! global rayon pool) alone, then while another thread runs 2^23 BN254 host-to-host transforms
//! back to back: with the pipeline's own copy workers (the library's behaviour), and with the
//! copies on the caller's pool (`testing::set_copies_on_caller_pool`, the behaviour before the
//! pipeline had workers of its own, whose crew spun on every worker of that pool). Prints a
//! markdown table; `ZKNTT_OUT=dir` also writes `dir/host_beside_rayon.json`;
//! `ZKNTT_COPY_THREADS=n` sets the pipeline's copy threads (default: the library's).

use ark_bn254::Fr;
use ark_ff::{Field, UniformRand};
use ark_std::rand::{SeedableRng, rngs::StdRng};
use rayon::prelude::*;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use zkntt_gpu::testing::{gpu_or_skip, set_copies_on_caller_pool};
use zkntt_gpu::timing::median;
use zkntt_gpu::{HostPipeline, NttConfig, NttEngine};

const JOB_LOG: u32 = 22;
const NTT_LOG: u32 = 23;
const JOB_RUNS: usize = 15;

/// The prover's job: 8 chained products per element on every worker of the global pool.
fn job(v: &mut [Fr]) -> f64 {
    let t = Instant::now();
    v.par_iter_mut().for_each(|x| {
        for _ in 0..8 {
            *x = x.square() + Fr::ONE;
        }
    });
    t.elapsed().as_secs_f64() * 1e3
}

/// The job's median time while `host` runs transforms back to back on another thread (or alone),
/// and the transforms' median time.
fn job_beside(host: Option<&HostPipeline>, v: &mut [Fr], data: &mut [Fr]) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let mut calls = Vec::new();
    let mut jobs = Vec::new();
    std::thread::scope(|s| {
        let h = s.spawn(|| {
            let mut ms = Vec::new();
            if let Some(host) = host {
                while !stop.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    host.ntt(data, &NttConfig::forward()).unwrap();
                    ms.push(t.elapsed().as_secs_f64() * 1e3);
                }
            }
            ms
        });
        for _ in 0..JOB_RUNS {
            jobs.push(job(v));
        }
        stop.store(true, Ordering::Relaxed);
        calls = h.join().unwrap();
    });
    (median(&mut jobs), median(&mut calls))
}

fn main() {
    // Criterion's `--bench` and filters are accepted and ignored: this bench has one case.
    let Some(gpu) = gpu_or_skip("bench host") else {
        return;
    };
    let info = gpu.info().unwrap();
    let host = HostPipeline::new(Arc::new(NttEngine::new(gpu)));
    let threads = std::env::var("ZKNTT_COPY_THREADS").ok();
    host.set_copy_threads(threads.and_then(|t| t.parse().ok()));
    let mut rng = StdRng::seed_from_u64(7);
    let mut v: Vec<Fr> = (0..1usize << JOB_LOG).map(|_| Fr::rand(&mut rng)).collect();
    let mut data: Vec<Fr> = (0..1usize << NTT_LOG).map(|_| Fr::rand(&mut rng)).collect();
    let cores = rayon::current_num_threads();
    // Warm: module, twiddles, pinned and device buffers, the job's pages.
    host.ntt(&mut data, &NttConfig::forward()).unwrap();
    job(&mut v);

    let (alone, _) = job_beside(None, &mut v, &mut data);
    let (own, own_call) = job_beside(Some(&host), &mut v, &mut data);
    set_copies_on_caller_pool(&host, true);
    let (caller, caller_call) = job_beside(Some(&host), &mut v, &mut data);
    set_copies_on_caller_pool(&host, false);

    println!(
        "# rayon job ({cores} global workers, 2^{JOB_LOG} x 8 products) beside 2^{NTT_LOG} BN254 host-to-host calls\n"
    );
    println!("{info}\n");
    println!("| copies on | job ms (median of {JOB_RUNS}) | job slowdown | host call ms |");
    println!("|---|---|---|---|");
    println!("| (no calls) | {alone:.1} | 1.00 | - |");
    println!(
        "| the pipeline's {} own workers | {own:.1} | {:.2} | {own_call:.2} |",
        host.copy_threads(),
        own / alone
    );
    println!(
        "| the caller's pool (before) | {caller:.1} | {:.2} | {caller_call:.2} |",
        caller / alone
    );
    if let Ok(dir) = std::env::var("ZKNTT_OUT") {
        let json = format!(
            "{{\"gpu\": \"{}\", \"cores\": {cores}, \"job_alone_ms\": {alone}, \"job_beside_own_ms\": {own}, \"host_own_ms\": {own_call}, \"job_beside_caller_pool_ms\": {caller}, \"host_caller_pool_ms\": {caller_call}}}\n",
            info.name
        );
        let _ = std::fs::create_dir_all(&dir);
        std::fs::write(format!("{dir}/host_beside_rayon.json"), json).unwrap();
    }
}
