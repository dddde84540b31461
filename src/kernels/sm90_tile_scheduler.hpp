// Static persistent tile scheduler for the SwiGLU kernels.
//
// Why static: every output tile costs the same (same K), so a fixed round-robin over a
// persistent grid of one CTA per SM balances as well as a dynamic queue, without the atomic.
// Why the raster bands: concurrently running tiles should share operands in L2. Walking the
// output row by row would stream every weight tile once per 128-row block of X (for
// qwen2.5-72b at M=16384, ~124 GB of weight traffic); walking bands of `band_m` M-blocks, M
// fastest inside the band, reads each weight tile once per band while the band's X rows
// (band_m * tile_m * K * 2 bytes, 16 MiB at 1024 rows and K=8192) stay in L2.
#pragma once

#include <cutlass/cutlass.h>

namespace tileglu::kernels {

struct Sm90StaticPersistentScheduler {
  int tiles_m = 0;   // ceil(M / tile_m)
  int tiles_n = 0;   // ceil(I / tile_n), output tiles
  int band_m = 1;    // M-blocks per raster band

  CUTLASS_HOST_DEVICE int total_tiles() const { return tiles_m * tiles_n; }

  // Maps a linear tile index to its (M-block, N-block).
  CUTLASS_DEVICE void tile_coord(int linear, int& m_blk, int& n_blk) const {
    int const tiles_per_band = band_m * tiles_n;
    int const band = linear / tiles_per_band;
    int const within = linear - band * tiles_per_band;
    int const band_m0 = band * band_m;
    int const rows_in_band = min(band_m, tiles_m - band_m0);  // the last band may be short
    m_blk = band_m0 + within % rows_in_band;
    n_blk = within / rows_in_band;
  }
};

}  // namespace tileglu::kernels
