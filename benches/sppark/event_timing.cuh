// The bridges' timing loop: each run's milliseconds by CUDA events on the stream it is queued on,
// and, where asked, the host's milliseconds to queue it (the call alone, wall clock).
#pragma once
#include <cuda_runtime.h>

#include <chrono>

// Writes the milliseconds of `reps` calls of `run` (each queuing one transform on `stream`) to
// ms[0..reps] and, where host_ms is not null, each call's own wall-clock milliseconds to
// host_ms[0..reps]. The events are created once, as zkntt's timing (zkntt_gpu::timing) does.
template <class Run>
inline void time_runs(cudaStream_t stream, float* ms, float* host_ms, int reps, Run run) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(a, stream);
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const auto t1 = std::chrono::steady_clock::now();
        cudaEventRecord(b, stream);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms[i], a, b);
        if (host_ms) host_ms[i] = std::chrono::duration<float, std::milli>(t1 - t0).count();
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}
