// Measured dispatch tables: which configuration ran fastest for each (dtype, K, I, M) measured on
// one device. Pure host code, no CUDA calls. `swiglu_bench --tune PATH` writes them; the library
// embeds one measured on an H200 (sm90_default_table.inc) and loads a user's on request
// (tileglu_load_tuning_table, TILEGLU_TUNING_TABLE).
//
// The text format, one record per line, '#' starts a comment:
//
//   tileglu-tuning-table 1          format version; must be the first record
//   library 0.1.0                   TILEGLU_VERSION_* of the library that wrote it
//   device NVIDIA H200              informational (cudaDeviceProp::name)
//   sm_count 132                    the multiprocessor count it was tuned on
//   bf16 896 4864 1 k2_pingpong_64x32x64_s12 9.81
//   ...                             dtype K I M config [time_us]: the fastest config measured
//
// Why a table rather than a model: the cost model (sm90_heuristics.cpp) ranks tiles by waves and
// operand bytes, but which of two tiles wins at a given M depends on clocks, L2 reuse and the
// epilogue's share of the time, which only measurement sees.
//
// Lookup: rows with the problem's K and I (and dtype; the other dtype's rows when the table has
// none for it) and the tuned M nearest the problem's M on a log scale, ties to the larger M.
// A problem whose (K, I) the table lacks is covered only by the nearest-shape lookup, which the
// dispatcher asks of every table after all of them failed an exact one: the tuned (K, I) nearest
// on a log scale (|ln K/k| + |ln I/i|), both within a factor of 2, then its nearest M. Why: the
// cost model knows neither the swap-AB decode kernels nor the TMA-store epilogues, which the
// tables pick on almost every row; a shape between two tuned ones (Llama-3-8B's K = 4096,
// I = 14336 between Qwen2.5-7B's and 14B's) runs best on what its neighbours run, not on the
// cost model's 64x64 tile (llama-3-8b M = 1 under CUDA graphs took 72.5 us with the cost model's
// choice against 62.8 for cuBLAS + Triton; bench/NOTES.md session 6).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../kernels/swiglu_params.h"

namespace tileglu {
namespace dispatch {

struct TableRow {
  DType dtype = DType::kBF16;
  int k = 0;
  int i = 0;
  int m = 0;
  int config = -1;  // index into the registry the table was parsed against
};

struct TuningTable {
  std::string source;  // the file path, or "embedded"
  std::string device;
  int sm_count = 0;
  std::vector<TableRow> rows;

  // The registry index the table names for (m, k, i, dtype), or -1 when it does not cover it.
  // nearest_shape: the nearest tuned (K, I) within a factor of 2 stands in for a missing one
  // (the K and I taken are returned in *from_k, *from_i when given).
  int lookup(int m, int k, int i, DType dtype, bool nearest_shape = false, int* from_k = nullptr,
             int* from_i = nullptr) const;
};

// The library version a table must carry, "MAJOR.MINOR.PATCH".
std::string library_version();

// Parses a table's text against the registry `entries[0, count)`. On failure returns false and
// sets *error to "<source>:<line>: <what is wrong>"; *table is then unspecified. A table is
// rejected when the format version or library version differ, sm_count is missing, a row names
// a configuration not in the registry (stale) or has a field out of range (malformed).
bool parse_tuning_table(const std::string& text, const std::string& source,
                        const KernelEntry* entries, int count, TuningTable* table,
                        std::string* error);

// The tables embedded in the library, each parsed against the registry once: the default,
// measured on an H200 (src/dispatch/sm90_default_table.inc), then one per other device measured.
// Never empty, no null entry: a table that failed to parse (a build error the CPU tests catch) is
// an empty one.
const std::vector<const TuningTable*>& embedded_tables();

// The embedded table for a device of this name (cudaDeviceProp::name; null: unknown):
// select_device_table(embedded_tables(), device_name). Why per device: which config wins a row
// differs between cards (on the H100 the H200 table's large-M Pingpong rows ran 1.06-1.39x the
// faster cuBLAS baseline, its Cooperative ones 0.95-0.98; bench/NOTES.md session 18).
const TuningTable* embedded_table(const char* device_name = nullptr);

// The first of `tables` (not empty) whose `device` record is exactly `device_name`, else the
// first table, the default. Exact names, since an H100 PCIe (114 SMs) or NVL is another card than
// the H100 SXM a table was measured on.
const TuningTable* select_device_table(const std::vector<const TuningTable*>& tables,
                                       const char* device_name);

// The table loaded by tileglu_load_tuning_table() or TILEGLU_TUNING_TABLE, or null.
// (Shared ownership, so that a reload on another thread cannot free it under a reader.)
std::shared_ptr<const TuningTable> user_table();
void set_user_table(std::shared_ptr<const TuningTable> table);

// Reads and parses `path` against the registry. On failure returns null and sets *error.
std::shared_ptr<const TuningTable> load_tuning_table_file(const std::string& path,
                                                          std::string* error);

}  // namespace dispatch
}  // namespace tileglu
