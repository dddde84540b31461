// split_tail_trace: where the split-tail Cooperative tile (`k2_coop_128x128x64_s4_tma_split`,
// sm90_swiglu_pingpong.hpp) spends its time, CTA by CTA, next to the whole-tile Cooperative tile
// it is meant to beat (bench/NOTES.md, sessions 20 and 21).
//
//   split_tail_trace --case NAME:M:K:I [--case ...] [--reps N] --out FILE.json
//
// Per case (bf16, random inputs): the median time of the whole-tile config, the split-tail config
// and the same kernel built with its timeline stamps (kSplitTailTrace), interleaved, each
// run after an L2 flush; then the stamps of one more traced run: per CTA, %globaltimer at the
// start, when its whole tiles are done, when it holds the exchange, per tail unit when it is swept,
// handed over (or its peers added) and stored, and when it released the exchange. The traced
// output must equal the shipped kernel's bit for bit (same sums in the same order); the whole-tile
// kernel's differs only by the order of the K sums, so only the count of differing outputs is
// reported for it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "bench_common.cuh"
#include "kernels/sm90_swiglu_pingpong.hpp"

namespace {

using tileglu::SwigluParams;
namespace tk = tileglu::kernels;

// The shipped configs' kernels, instantiated here with the template arguments of their
// instantiations/ files (k2_coop_128x128x64_s4_tma_bf16.cu and ..._split_bf16.cu), so this
// program needs none of the library's internals; and the split tail once more with the timeline
// stamps, a type of its own (its kernel, exchange and stamps are separate from the unstamped one's).
using WholeTileBf16 = tk::Sm90SwigluPingpong<cutlass::bfloat16_t, 128, 128, 64, 4, 1, 0, false, true, true, true>;
using SplitTailBf16 = tk::Sm90SwigluPingpong<cutlass::bfloat16_t, 128, 128, 64, 4, 1, 0, false, true, true, true,
                                             false, 1, true>;
struct TracedSplitTail : SplitTailBf16 {
  static constexpr bool kSplitTailTrace = true;
};

#define CHECK_CUDA(call)                                                                              \
  do {                                                                                                \
    cudaError_t const e_ = (call);                                                                    \
    if (e_ != cudaSuccess) {                                                                          \
      std::fprintf(stderr, "split_tail_trace: %s failed at %s:%d: %s\n", #call, __FILE__, __LINE__, \
                   cudaGetErrorString(e_));                                                           \
      std::exit(1);                                                                                   \
    }                                                                                                 \
  } while (0)

// N(0, stddev^2) values from bench_common::hash_normal of (seed, index): no zeros in, no cuRAND.
__global__ void fill_normal(__nv_bfloat16* data, int64_t n, uint64_t seed, float stddev) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    data[i] = __float2bfloat16(bench_common::hash_normal(seed, uint64_t(i)) * stddev);
}

struct Case {
  std::string name;
  int m, k, i;
};

using bench_common::median;

int usage() {
  std::fprintf(stderr, "usage: split_tail_trace --case NAME:M:K:I [--case ...] [--reps N] --out FILE.json\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  int reps = 20;
  std::string out_path;
  for (int a = 1; a < argc; ++a) {
    std::string const arg = argv[a];
    if (arg == "--case" && a + 1 < argc) {
      std::string const spec = argv[++a];
      char name[64];
      Case c{};
      if (std::sscanf(spec.c_str(), "%63[^:]:%d:%d:%d", name, &c.m, &c.k, &c.i) != 4 || c.m < 1 || c.k < 1 ||
          c.i < 1 || c.k % 8 != 0 || c.i % 8 != 0) {
        std::fprintf(stderr, "split_tail_trace: --case %s is not NAME:M:K:I (K and I multiples of 8)\n", spec.c_str());
        return 2;
      }
      c.name = name;
      cases.push_back(c);
    } else if (arg == "--reps" && a + 1 < argc) {
      reps = std::atoi(argv[++a]);
      if (reps < 1) return usage();
    } else if (arg == "--out" && a + 1 < argc) {
      out_path = argv[++a];
    } else {
      return usage();
    }
  }
  if (cases.empty() || out_path.empty()) return usage();

  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, device));
  int const sm_count = prop.multiProcessorCount;

  // Twice the L2, written before every timed launch so that none starts with its operands cached.
  size_t const flush_bytes = size_t(2) * size_t(prop.l2CacheSize);
  void* flush = nullptr;
  CHECK_CUDA(cudaMalloc(&flush, flush_bytes));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));

  FILE* out = std::fopen(out_path.c_str(), "w");
  if (!out) {
    std::fprintf(stderr, "split_tail_trace: cannot write %s\n", out_path.c_str());
    return 1;
  }
  std::fprintf(out, "{\"device\": \"%s\", \"sm_count\": %d, \"reps\": %d, \"cases\": [", prop.name, sm_count, reps);

  for (size_t ci = 0; ci < cases.size(); ++ci) {
    Case const& c = cases[ci];
    int64_t const x_elems = int64_t(c.m) * c.k, w_elems = int64_t(c.i) * c.k, o_elems = int64_t(c.m) * c.i;
    __nv_bfloat16 *x, *wg, *wu, *o_whole, *o_split, *o_traced;
    CHECK_CUDA(cudaMalloc(&x, x_elems * 2));
    CHECK_CUDA(cudaMalloc(&wg, w_elems * 2));
    CHECK_CUDA(cudaMalloc(&wu, w_elems * 2));
    CHECK_CUDA(cudaMalloc(&o_whole, o_elems * 2));
    CHECK_CUDA(cudaMalloc(&o_split, o_elems * 2));
    CHECK_CUDA(cudaMalloc(&o_traced, o_elems * 2));
    uint32_t const seed = 0x5EED0000u + uint32_t(ci) * 7919u;
    fill_normal<<<1024, 256, 0, stream>>>(x, x_elems, seed, 1.0f);
    fill_normal<<<1024, 256, 0, stream>>>(wg, w_elems, seed + 1, 1.0f / std::sqrt(float(c.k)));
    fill_normal<<<1024, 256, 0, stream>>>(wu, w_elems, seed + 2, 1.0f / std::sqrt(float(c.k)));
    CHECK_CUDA(cudaGetLastError());

    auto params_for = [&](__nv_bfloat16* o) {
      SwigluParams p;
      p.m = c.m;
      p.k = c.k;
      p.i = c.i;
      p.x = x;
      p.ldx = c.k;
      p.w_gate = wg;
      p.ld_gate = c.k;
      p.w_up = wu;
      p.ld_up = c.k;
      p.out = o;
      p.ld_out = c.i;
      return p;
    };
    SwigluParams const p_whole = params_for(o_whole), p_split = params_for(o_split), p_traced = params_for(o_traced);
    auto run_whole = [&] { return tk::launch_sm90_swiglu_pingpong<WholeTileBf16>(p_whole, sm_count, stream); };
    auto run_split = [&] { return tk::launch_sm90_swiglu_pingpong<SplitTailBf16>(p_split, sm_count, stream); };
    auto run_traced = [&] { return tk::launch_sm90_swiglu_pingpong<TracedSplitTail>(p_traced, sm_count, stream); };
    // Outputs poisoned (0xFFFF: NaN) so an unwritten one cannot pass as equal.
    CHECK_CUDA(cudaMemsetAsync(o_whole, 0xFF, o_elems * 2, stream));
    CHECK_CUDA(cudaMemsetAsync(o_split, 0xFF, o_elems * 2, stream));
    CHECK_CUDA(cudaMemsetAsync(o_traced, 0x7F, o_elems * 2, stream));

    std::vector<double> t_whole, t_split, t_traced;
    auto timed = [&](auto&& launch, std::vector<double>* times) {
      CHECK_CUDA(cudaMemsetAsync(flush, int(times ? times->size() & 0xFF : 1), flush_bytes, stream));
      CHECK_CUDA(cudaEventRecord(start, stream));
      CHECK_CUDA(launch());
      CHECK_CUDA(cudaEventRecord(stop, stream));
      CHECK_CUDA(cudaEventSynchronize(stop));
      float ms = 0.0f;
      CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (times) times->push_back(double(ms) * 1000.0);
    };
    for (int w = 0; w < 3; ++w) {  // warm-up: module load, shared-memory opt-in, clocks
      timed(run_whole, nullptr);
      timed(run_split, nullptr);
      timed(run_traced, nullptr);
    }
    for (int r = 0; r < reps; ++r) {
      timed(run_whole, &t_whole);
      timed(run_split, &t_split);
      timed(run_traced, &t_traced);
    }
    // The run whose stamps are reported: cleared first, so a step a CTA never reached is 0 here and
    // -1 in the JSON.
    std::vector<unsigned long long> stamps(size_t(tk::kSplitTailMaxCtas) * tk::kSplitTailTraceSteps, 0ull);
    CHECK_CUDA(cudaMemcpyToSymbol(tk::g_split_tail_trace<TracedSplitTail>, stamps.data(),
                                  stamps.size() * sizeof(unsigned long long)));
    timed(run_traced, &t_traced);
    CHECK_CUDA(cudaMemcpyFromSymbol(stamps.data(), tk::g_split_tail_trace<TracedSplitTail>,
                                    stamps.size() * sizeof(unsigned long long)));

    std::vector<uint16_t> h_whole(o_elems), h_split(o_elems), h_traced(o_elems);
    CHECK_CUDA(cudaMemcpy(h_whole.data(), o_whole, o_elems * 2, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_split.data(), o_split, o_elems * 2, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(h_traced.data(), o_traced, o_elems * 2, cudaMemcpyDeviceToHost));
    int64_t traced_differs = 0, whole_differs = 0, nan_split = 0;
    for (int64_t e = 0; e < o_elems; ++e) {
      traced_differs += h_traced[e] != h_split[e];
      whole_differs += h_whole[e] != h_split[e];
      nan_split += (h_split[e] & 0x7F80) == 0x7F80 && (h_split[e] & 0x7F) != 0;
    }

    // What the launcher ran (launch_sm90_swiglu_pingpong's split-tail branch, without
    // TILEGLU_SPLIT_TAIL_GRID): the same tiles, grid and split_tail_launch.
    using Mainloop = SplitTailBf16::Mainloop;
    int const tiles = ((c.m + Mainloop::kTileM - 1) / Mainloop::kTileM) * ((c.i + Mainloop::kTileN - 1) / Mainloop::kTileN);
    int const k_tiles = (c.k + Mainloop::kTileK - 1) / Mainloop::kTileK;
    tk::SplitTailLaunch const launch = tk::split_tail_launch(tiles, k_tiles, tk::split_tail_ctas(sm_count));
    tk::SplitTailPlan const& plan = launch.plan;
    std::fprintf(out,
                 "%s\n {\"case\": \"%s\", \"m\": %d, \"k\": %d, \"i\": %d, \"tiles\": %d, \"k_tiles\": %d, \"grid\": %d, "
                 "\"cooperative\": %s, \"dp_tiles\": %d, \"tail_tiles\": %d, \"pieces\": %d, \"whole_us\": %.3f, \"split_us\": %.3f, "
                 "\"traced_us\": %.3f, \"traced_outputs_differing_from_split\": %lld, "
                 "\"whole_outputs_differing_from_split\": %lld, \"split_nan_outputs\": %lld, \"outputs\": %lld,\n"
                 "  \"stamp_steps\": %d, \"stamps_ns\": [",
                 ci ? "," : "", c.name.c_str(), c.m, c.k, c.i, tiles, k_tiles, launch.grid,
                 launch.cooperative ? "true" : "false", plan.dp_tiles, plan.tail_tiles,
                 plan.pieces, median(t_whole), median(t_split), median(t_traced), (long long)traced_differs,
                 (long long)whole_differs, (long long)nan_split, (long long)o_elems, tk::kSplitTailTraceSteps);
    unsigned long long t0 = ~0ull;
    for (unsigned long long s : stamps) {
      if (s) t0 = std::min(t0, s);
    }
    for (int cta = 0; cta < tk::kSplitTailMaxCtas; ++cta) {
      std::fprintf(out, "%s[", cta ? ",\n   " : "");
      for (int s = 0; s < tk::kSplitTailTraceSteps; ++s) {
        unsigned long long const v = stamps[size_t(cta) * tk::kSplitTailTraceSteps + s];
        std::fprintf(out, "%s%lld", s ? "," : "", v ? (long long)(v - t0) : -1ll);
      }
      std::fprintf(out, "]");
    }
    std::fprintf(out, "]}");
    std::printf("%s M=%d: whole %.1f us, split %.1f, traced %.1f; plan dp %d tail %d pieces %d; traced!=split %lld, "
                "whole!=split %lld of %lld\n",
                c.name.c_str(), c.m, median(t_whole), median(t_split), median(t_traced), plan.dp_tiles,
                plan.tail_tiles, plan.pieces, (long long)traced_differs, (long long)whole_differs, (long long)o_elems);
    std::fflush(stdout);
    CHECK_CUDA(cudaFree(x));
    CHECK_CUDA(cudaFree(wg));
    CHECK_CUDA(cudaFree(wu));
    CHECK_CUDA(cudaFree(o_whole));
    CHECK_CUDA(cudaFree(o_split));
    CHECK_CUDA(cudaFree(o_traced));
  }
  std::fprintf(out, "\n]}\n");
  std::fclose(out);
  return 0;
}
