// The bridges' timing loop: each run's milliseconds by CUDA events on the stream it is queued on.
#pragma once
#include <cuda_runtime.h>

// Writes the milliseconds of `reps` calls of `run` (each queuing one transform on `stream`) to
// ms[0..reps].
template <class Run>
inline void time_runs(cudaStream_t stream, float* ms, int reps, Run run) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(a, stream);
        run();
        cudaEventRecord(b, stream);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms[i], a, b);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
}
