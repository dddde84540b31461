/*
 * tileglu — tile-fused SwiGLU for NVIDIA Hopper (sm_90a).
 *
 *   H[M, I] = silu(X[M, K] · Wg[I, K]^T) ⊙ (X[M, K] · Wu[I, K]^T)
 *
 * bf16 or fp16 in and out, fp32 accumulation, SwiGLU applied in fp32, rounded once.
 * The gate and up projections are never written to memory.
 *
 * This is the public C ABI: plain pointers, element strides and a cudaStream_t, so that any
 * language can call it. Every function validates its arguments before touching device memory;
 * a failing call returns a named status and tileglu_last_error_message() says what was wrong.
 */
#ifndef TILEGLU_TILEGLU_H_
#define TILEGLU_TILEGLU_H_

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h> /* cudaStream_t */

/* The library is built with hidden symbols; only the functions below are exported. */
#if defined(__GNUC__) || defined(__clang__)
#define TILEGLU_API __attribute__((visibility("default")))
#else
#define TILEGLU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define TILEGLU_VERSION_MAJOR 0
#define TILEGLU_VERSION_MINOR 1
#define TILEGLU_VERSION_PATCH 0

/* Every dimension and leading dimension must be a multiple of this many elements (16 bytes). */
#define TILEGLU_ALIGNMENT_ELEMENTS 8
/* Every pointer must be aligned to this many bytes. */
#define TILEGLU_ALIGNMENT_BYTES 16

typedef enum tileglu_status {
  TILEGLU_SUCCESS = 0,
  TILEGLU_ERROR_NULL_POINTER = 1,       /* x, a weight, out or the problem struct is NULL      */
  TILEGLU_ERROR_INVALID_SHAPE = 2,      /* m, k or i <= 0, or too large for 32-bit tile indices */
  TILEGLU_ERROR_UNALIGNED_DIMENSION = 3,/* k or i is not a multiple of 8                        */
  TILEGLU_ERROR_INVALID_LEADING_DIM = 4,/* a leading dim is < its row length or not a multiple of 8 */
  TILEGLU_ERROR_MISALIGNED_POINTER = 5, /* a pointer is not 16-byte aligned                     */
  TILEGLU_ERROR_ALIASING = 6,           /* out overlaps x or a weight                           */
  TILEGLU_ERROR_UNSUPPORTED_DTYPE = 7,  /* dtype is not TILEGLU_DTYPE_BF16 / TILEGLU_DTYPE_FP16 */
  TILEGLU_ERROR_UNSUPPORTED_DEVICE = 8, /* no CUDA device, or the current device is not sm_90   */
  TILEGLU_ERROR_CUDA = 9,               /* a CUDA runtime or driver call failed                 */
  TILEGLU_ERROR_NO_KERNEL = 10,         /* no compiled kernel serves this problem               */
  TILEGLU_ERROR_INVALID_ARGUMENT = 11,  /* an index out of range, or an empty path              */
  TILEGLU_ERROR_INVALID_TABLE = 12      /* a tuning table unreadable, malformed or stale        */
} tileglu_status_t;

typedef enum tileglu_dtype {
  TILEGLU_DTYPE_BF16 = 0,
  TILEGLU_DTYPE_FP16 = 1
} tileglu_dtype_t;

/*
 * One SwiGLU forward. All matrices are row-major with a leading dimension in elements:
 *   x      [m, k], ldx    >= k
 *   w_gate [i, k], ld_gate >= k   (nn.Linear gate_proj.weight)
 *   w_up   [i, k], ld_up  >= k   (nn.Linear up_proj.weight)
 *   out    [m, i], ld_out >= i
 * For a stacked [2i, k] weight (gate rows first, vLLM's gate_up_proj) use
 * tileglu_swiglu_stacked() or set w_up = w_gate + i * ld_gate yourself.
 * The weights are read where they are: nothing is copied or repacked.
 */
typedef struct tileglu_swiglu_problem {
  tileglu_dtype_t dtype;
  int64_t m; /* tokens                 */
  int64_t k; /* hidden size            */
  int64_t i; /* intermediate size      */
  const void* x;
  int64_t ldx;
  const void* w_gate;
  int64_t ld_gate;
  const void* w_up;
  int64_t ld_up;
  void* out;
  int64_t ld_out;
} tileglu_swiglu_problem_t;

/* Which kernel and tile configuration a problem runs with (tileglu_query_config). */
typedef struct tileglu_config {
  int kernel;      /* 2 = Kernel-2: one GEMM over [gate | up] tiles, SwiGLU in the epilogue;
                      1 = Kernel-1: separate gate and up accumulators                          */
  int tile_m;      /* rows of X per output tile                                            */
  int tile_n;      /* output columns per tile (the GEMM tile is 2 * tile_n wide)            */
  int tile_k;      /* K per pipeline stage                                                  */
  int stages;      /* shared-memory pipeline stages                                         */
  int cluster_m;   /* thread-block cluster shape                                            */
  int cluster_n;
  int promote_k_tiles; /* 0: fp32 accumulation in the tensor cores only (the default);
                        * P > 0: the tensor-core partial sum is added into an fp32 FADD
                        * accumulator every P k tiles (TILEGLU_ACCUMULATION=promoted)       */
  int split_k;     /* 1: one CTA per output tile; S > 1: S CTAs (a cluster) split each tile's K */
  int ablation;    /* 1: a benchmark-only variant (runs only when forced, never tuned)        */
  char name[64];   /* e.g. "k2_pingpong_128x64x64_s6" */
} tileglu_config_t;

/* Runs the SwiGLU forward on `stream`. Asynchronous; returns after validation and launch. */
TILEGLU_API
tileglu_status_t tileglu_swiglu(const tileglu_swiglu_problem_t* problem, cudaStream_t stream);

/* Separate gate and up weights sharing one leading dimension `ldw`. */
TILEGLU_API
tileglu_status_t tileglu_swiglu_separate(tileglu_dtype_t dtype, int64_t m, int64_t k, int64_t i,
                                         const void* x, int64_t ldx, const void* w_gate,
                                         const void* w_up, int64_t ldw, void* out, int64_t ld_out,
                                         cudaStream_t stream);

/* Stacked [2i, k] weight, gate rows [0, i) then up rows [i, 2i), leading dimension `ldw`. */
TILEGLU_API
tileglu_status_t tileglu_swiglu_stacked(tileglu_dtype_t dtype, int64_t m, int64_t k, int64_t i,
                                        const void* x, int64_t ldx, const void* w_gate_up,
                                        int64_t ldw, void* out, int64_t ld_out,
                                        cudaStream_t stream);

/* Validates `problem` (as tileglu_swiglu would, device check included) and reports the
 * kernel/config it would run with. Launches nothing. */
TILEGLU_API
tileglu_status_t tileglu_query_config(const tileglu_swiglu_problem_t* problem,
                                      tileglu_config_t* config);

/* The compiled kernel configurations, in a fixed order: how many there are, and the one at
 * `index` (0 <= index < tileglu_config_count()). With TILEGLU_FORCE_CONFIG=<name> any of them
 * runs any problem it is valid for (how the tuner times them). */
TILEGLU_API
int tileglu_config_count(void);
TILEGLU_API
tileglu_status_t tileglu_config_at(int index, tileglu_config_t* config);

/* Loads a tuning table written by `swiglu_bench --tune PATH` (bench/README.md): from then on the
 * problems it covers run the configuration it names, instead of the embedded default table's.
 * A table that cannot be read, is malformed, or is stale (written by another library version, for
 * another device, or naming a configuration this build lacks) is rejected with
 * TILEGLU_ERROR_INVALID_TABLE and a message naming the file, line and fault; the table in use
 * before the call stays in use. NULL drops a loaded table (back to the embedded default).
 * The environment variable TILEGLU_TUNING_TABLE=<path> loads one at the first call (a rejected
 * file is reported on stderr). Needs the device only to check that the table was tuned on it. */
TILEGLU_API
tileglu_status_t tileglu_load_tuning_table(const char* path);

/* A fixed name for a status, e.g. "TILEGLU_ERROR_ALIASING". Never NULL. */
TILEGLU_API
const char* tileglu_status_string(tileglu_status_t status);

/* The message of the last failing call on this thread, naming the argument at fault.
 * Empty string after a successful call. Never NULL. */
TILEGLU_API
const char* tileglu_last_error_message(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TILEGLU_TILEGLU_H_ */
