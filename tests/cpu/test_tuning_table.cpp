// Tuning tables (src/dispatch/tuning_table.h): parsing, rejection of malformed and stale tables
// with the line at fault, lookup (nearest M on a log scale, the other dtype's rows as fallback),
// their place in dispatch (after TILEGLU_FORCE_CONFIG, before the cost model, only on the SM count
// they were tuned on), the embedded default and the C API that loads a user's table.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "dispatch/sm90_heuristics.h"
#include "test_dispatch_helpers.h"
#include "dispatch/tuning_table.h"
#include "tileglu/tileglu.h"

namespace tileglu {
namespace dispatch {
namespace {

using tileglu_test::fake_launch;
using tileglu_test::ScopedEnv;

const KernelEntry kEntries[] = {
    {{"big", 2, 128, 64, 64, 6, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
    {{"small", 2, 64, 64, 64, 8, 1, 1, 0, 1, true, false}, fake_launch, fake_launch},
    {{"narrow", 2, 64, 32, 64, 12, 1, 1, 0, 1, false, false}, fake_launch, fake_launch},
    {{"promoted", 2, 64, 64, 64, 8, 1, 1, 8, 1, true, false}, fake_launch, fake_launch},
    {{"bf16_only", 2, 64, 128, 64, 5, 1, 1, 0, 1, false, false}, fake_launch, nullptr},
};
constexpr int kCount = 5;

std::string header(int sm_count = 132) {
  return "tileglu-tuning-table 1\nlibrary " + library_version() + "\ndevice Test GPU\nsm_count " +
         std::to_string(sm_count) + "\n";
}

TuningTable parse_ok(const std::string& text) {
  TuningTable t;
  std::string error;
  EXPECT_TRUE(parse_tuning_table(text, "t.table", kEntries, kCount, &t, &error)) << error;
  return t;
}

std::string parse_error(const std::string& text) {
  TuningTable t;
  std::string error;
  EXPECT_FALSE(parse_tuning_table(text, "t.table", kEntries, kCount, &t, &error));
  return error;
}


TEST(TuningTable, ParsesHeaderRowsAndComments) {
  const TuningTable t = parse_ok("# a comment\n" + header() +
                                 "bf16 896 4864 1 narrow 9.81   # trailing comment\n"
                                 "bf16 896 4864 4096 big\n"
                                 "fp16 896 4864 16 small 10.5\n");
  EXPECT_EQ(t.source, "t.table");
  EXPECT_EQ(t.device, "Test GPU");
  EXPECT_EQ(t.sm_count, 132);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[0].dtype, DType::kBF16);
  EXPECT_EQ(t.rows[0].k, 896);
  EXPECT_EQ(t.rows[0].i, 4864);
  EXPECT_EQ(t.rows[0].m, 1);
  EXPECT_EQ(t.rows[0].config, 2);
  EXPECT_EQ(t.rows[1].config, 0);
  EXPECT_EQ(t.rows[2].dtype, DType::kFP16);
  EXPECT_EQ(t.rows[2].config, 1);
}

TEST(TuningTable, RejectsMalformedTablesNamingTheLine) {
  EXPECT_EQ(parse_error(""), "t.table:0: empty: not a tileglu tuning table");
  EXPECT_EQ(parse_error("hello\n"),
            "t.table:1: not a tileglu tuning table (the first record must be "
            "'tileglu-tuning-table 1')");
  EXPECT_EQ(parse_error("tileglu-tuning-table 2\n"), "t.table:1: format version '2' is not 1");
  EXPECT_EQ(parse_error("tileglu-tuning-table 1\nsm_count 132\n"), "t.table:2: no 'library' record");
  EXPECT_EQ(parse_error("tileglu-tuning-table 1\nlibrary " + library_version() + "\n"),
            "t.table:2: no 'sm_count' record");
  EXPECT_EQ(parse_error(header() + "sm_count x\n"), "t.table:5: sm_count 'x' is not a positive integer");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1\n"),
            "t.table:5: a row needs 'dtype K I M config [time_us]'");
  EXPECT_EQ(parse_error(header() + "bf16 900 4864 1 big\n"),
            "t.table:5: K '900' is not a positive multiple of 8");
  EXPECT_EQ(parse_error(header() + "bf16 896 -8 1 big\n"),
            "t.table:5: I '-8' is not a positive multiple of 8");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 0 big\n"),
            "t.table:5: M '0' is not a positive integer");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1x big\n"),
            "t.table:5: M '1x' is not a positive integer");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1 big nan\n"),
            "t.table:5: time 'nan' is not a positive number");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1 big 1.0 extra\n"),
            "t.table:5: unexpected field 'extra' after the time");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1 big\nbf16 896 4864 1 small\n"),
            "t.table:6: a second row for bf16 K=896 I=4864 M=1");
  EXPECT_EQ(parse_error(header() + "int8 896 4864 1 big\n"), "t.table:5: unknown record 'int8'");
}

TEST(TuningTable, RejectsStaleTables) {
  EXPECT_EQ(parse_error("tileglu-tuning-table 1\nlibrary 0.0.1\nsm_count 132\n"),
            "t.table:2: stale: written by tileglu 0.0.1, this is tileglu " + library_version() +
                " (re-run the tuner)");
  EXPECT_EQ(parse_error(header() + "bf16 896 4864 1 k2_gone_128x64x64_s6\n"),
            "t.table:5: stale: configuration 'k2_gone_128x64x64_s6' is not in this build "
            "(re-run the tuner)");
}

TEST(TuningTable, LookupTakesTheNearestMOnALogScale) {
  const TuningTable t = parse_ok(header() +
                                 "bf16 896 4864 1 narrow\n"
                                 "bf16 896 4864 64 small\n"
                                 "bf16 896 4864 4096 big\n"
                                 "bf16 3584 18944 16 small\n");
  EXPECT_EQ(t.lookup(1, 896, 4864, DType::kBF16), 2);
  EXPECT_EQ(t.lookup(7, 896, 4864, DType::kBF16), 2);     // log2: 2.8 from 1, 3.2 from 64
  EXPECT_EQ(t.lookup(8, 896, 4864, DType::kBF16), 1);     // 3 from both: the larger M
  EXPECT_EQ(t.lookup(512, 896, 4864, DType::kBF16), 0);   // 3 from 64, 3 from 4096: larger
  EXPECT_EQ(t.lookup(511, 896, 4864, DType::kBF16), 1);
  EXPECT_EQ(t.lookup(600, 896, 4864, DType::kBF16), 0);
  EXPECT_EQ(t.lookup(1 << 30, 896, 4864, DType::kBF16), 0);
  EXPECT_EQ(t.lookup(5000, 3584, 18944, DType::kBF16), 1);  // one row: always it
  // Not covered: another (K, I).
  EXPECT_EQ(t.lookup(1, 896, 4872, DType::kBF16), -1);
  EXPECT_EQ(t.lookup(1, 904, 4864, DType::kBF16), -1);
  // fp16 has no rows: the bf16 rows stand in (same tiles, same speed).
  EXPECT_EQ(t.lookup(1, 896, 4864, DType::kFP16), 2);
}

TEST(TuningTable, NearestShapeLookupStaysWithinAFactorOfTwo) {
  const TuningTable t = parse_ok(header() +
                                 "bf16 896 4864 1 narrow\n"
                                 "bf16 896 4864 4096 big\n"
                                 "bf16 3584 18944 1 small\n"
                                 "bf16 5120 13824 1 bf16_only\n");
  int from_k = 0, from_i = 0;
  // Exact lookups never stand in another shape.
  EXPECT_EQ(t.lookup(1, 4096, 14336, DType::kBF16), -1);
  // Llama-3-8B's 4096/14336: 5120/13824 is nearer (1.25 * 1.04 = 1.30) than 3584/18944
  // (1.14 * 1.32 = 1.51).
  EXPECT_EQ(t.lookup(1, 4096, 14336, DType::kBF16, true, &from_k, &from_i), 4);
  EXPECT_EQ(from_k, 5120);
  EXPECT_EQ(from_i, 13824);
  // The nearest shape's own M rule applies.
  EXPECT_EQ(t.lookup(5000, 1024, 4096, DType::kBF16, true, &from_k, &from_i), 0);
  EXPECT_EQ(from_k, 896);
  EXPECT_EQ(t.lookup(2, 1024, 4096, DType::kBF16, true), 2);
  // An exact shape is its own nearest.
  EXPECT_EQ(t.lookup(1, 3584, 18944, DType::kBF16, true, &from_k, &from_i), 1);
  EXPECT_EQ(from_k, 3584);
  // Past a factor of 2 in K or in I: not covered.
  EXPECT_EQ(t.lookup(1, 440, 4864, DType::kBF16, true), -1);
  EXPECT_EQ(t.lookup(1, 896, 2400, DType::kBF16, true), -1);
  EXPECT_EQ(t.lookup(1, 12288, 29568, DType::kBF16, true), -1);
}

TEST(TuningTable, ExactRowsOfAnyTableBeatNearestShapes) {
  // The user's table has a shape near the problem, the embedded one the problem's own: the
  // embedded exact row wins.
  const TuningTable user = parse_ok(header() + "bf16 4096 14336 1 narrow\n");
  const TuningTable embedded = parse_ok(header() + "bf16 3584 18944 1 small\n");
  const TuningTable* both[2] = {&user, &embedded};
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 3584, 18944, DType::kBF16, 132, both, 2), 1);
  // For a shape neither has, the tables in order: the user's nearest shape.
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 4096, 16384, DType::kBF16, 132, both, 2), 2);
}

TEST(TuningTable, LookupPrefersTheProblemsDtype) {
  const TuningTable t = parse_ok(header() + "bf16 896 4864 1 narrow\nfp16 896 4864 4096 big\n");
  EXPECT_EQ(t.lookup(1, 896, 4864, DType::kFP16), 0);  // the fp16 row, though M is far from it
  EXPECT_EQ(t.lookup(4096, 896, 4864, DType::kBF16), 2);
}

TEST(TuningTable, DispatchOrderForcedThenTablesThenCostModel) {
  const TuningTable user = parse_ok(header() + "bf16 896 4864 1 narrow\n");
  const TuningTable embedded = parse_ok(header() + "bf16 896 4864 1 small\nbf16 3584 18944 1 narrow\n");
  const TuningTable* both[2] = {&user, &embedded};
  // The user's table wins over the embedded one; `narrow` is no cost-model candidate, yet a
  // table may pick it.
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, both, 2), 2);
  // The embedded table covers what the user's does not.
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 3584, 18944, DType::kBF16, 132, both, 2), 2);
  const TuningTable* only_embedded[2] = {nullptr, &embedded};
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, only_embedded, 2), 1);
  // Neither has the shape: the nearest tuned shape within 2x stands in (4096/14336 is nearest
  // 3584/18944, the embedded table's), and only where none is near, the cost model.
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 4096, 14336, DType::kBF16, 132, both, 2), 2);
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 128, 256, DType::kBF16, 132, both, 2),
            choose_from(kEntries, kCount, Shape{1, 128, 256, DType::kBF16}, 132));
  // Tuned on another SM count: not used.
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 114, both, 2),
            choose_from(kEntries, kCount, Shape{1, 896, 4864, DType::kBF16}, 114));
  // TILEGLU_FORCE_CONFIG wins over every table.
  {
    ScopedEnv force("TILEGLU_FORCE_CONFIG", "big");
    EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, both, 2), 0);
  }
}

TEST(TuningTable, DispatchSkipsRowsThatCannotRunTheProblem) {
  // bf16_only has no fp16 launcher: an fp16 problem falls through to the next source.
  const TuningTable t = parse_ok(header() + "bf16 896 4864 1 bf16_only\n");
  const TuningTable* tables[1] = {&t};
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, tables, 1), 4);
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kFP16, 132, tables, 1),
            choose_from(kEntries, kCount, Shape{1, 896, 4864, DType::kFP16}, 132));
  // A tensor-core row is not used in promoted mode, and the promoted config wins there.
  ScopedEnv acc("TILEGLU_ACCUMULATION", "promoted");
  EXPECT_EQ(choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, tables, 1), 3);
}

TEST(TuningTable, LogNamesTheSource) {
  const TuningTable t = parse_ok(header() + "bf16 896 4864 1 narrow\n");
  const TuningTable* tables[1] = {&t};
  ScopedEnv log("TILEGLU_LOG_DISPATCH", "1");
  testing::internal::CaptureStderr();
  choose_kernel_from(kEntries, kCount, 1, 896, 4864, DType::kBF16, 132, tables, 1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("-> narrow (tuning table t.table)"), std::string::npos) << err;
  testing::internal::CaptureStderr();
  choose_kernel_from(kEntries, kCount, 1, 1024, 4864, DType::kBF16, 132, tables, 1);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("-> narrow (tuning table t.table, nearest tuned shape k=896 i=4864)"), std::string::npos)
      << err;
  testing::internal::CaptureStderr();
  choose_kernel_from(kEntries, kCount, 1, 4096, 4864, DType::kBF16, 132, tables, 1);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("(cost model)"), std::string::npos) << err;
}

// Every embedded table parses against the real registry, every row names a shipped config, and
// its rows are for the tensor-core configs of the registry; the default (an H200's, 132 SMs)
// comes first, and no two tables claim one device.
TEST(TuningTable, EmbeddedTablesAreValid) {
  const std::vector<const TuningTable*>& tables = embedded_tables();
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables.front()->source, "embedded");
  EXPECT_EQ(tables.front()->sm_count, 132);
  EXPECT_EQ(embedded_table(), tables.front());
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  std::set<std::string> devices;
  for (const TuningTable* t : tables) {
    ASSERT_NE(t, nullptr);
    SCOPED_TRACE(t->source);
    EXPECT_EQ(t->source.find("invalid"), std::string::npos);
    EXPECT_FALSE(t->device.empty());
    EXPECT_TRUE(devices.insert(t->device).second) << "a second table for " << t->device;
    EXPECT_GT(t->sm_count, 0);
    EXPECT_FALSE(t->rows.empty());
    for (const TableRow& row : t->rows) {
      ASSERT_GE(row.config, 0);
      ASSERT_LT(row.config, count);
      EXPECT_EQ(registry[row.config].config.promote_k_tiles, 0) << registry[row.config].config.name;
    }
  }
  // Each embedded device name picks its own table.
  for (const TuningTable* t : tables) EXPECT_EQ(embedded_table(t->device.c_str()), t) << t->device;
  EXPECT_EQ(embedded_table("NVIDIA B200"), tables.front());
  // The two cards measured: the H200 (the default) and the H100 80GB HBM3 (session 19).
  EXPECT_EQ(tables.front()->device, "NVIDIA H200");
  EXPECT_EQ(embedded_table("NVIDIA H100 80GB HBM3")->device, "NVIDIA H100 80GB HBM3");
}

// Why the H100 has its own table: at large M the H200's rows run the Pingpong 128x64 tile, which
// on an H100 at its 700 W limit does 389 TFLOP/s per GHz against the Cooperative 128x128 tile's
// 478 (qwen2.5-7b M = 32768, bench/results/2026-12-07T0550Z_h100_e533863_power_clock.json); the
// H100 tune put the Cooperative tile on those rows.
TEST(TuningTable, H100TableRunsTheCooperativeTileAtLargeM) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  const char* h100 = "NVIDIA H100 80GB HBM3";
  const struct {
    int m, k, i;
  } rows[] = {{32768, 3584, 18944}, {16384, 3584, 18944}, {16384, 8192, 29568}, {32768, 8192, 29568}};
  for (const auto& r : rows) {
    SCOPED_TRACE("m=" + std::to_string(r.m) + " k=" + std::to_string(r.k) + " i=" + std::to_string(r.i));
    const int on_h100 = choose_kernel(r.m, r.k, r.i, DType::kBF16, 132, h100);
    ASSERT_GE(on_h100, 0);
    EXPECT_STREQ(registry[on_h100].config.name, "k2_coop_128x128x64_s4_tma");
    const int on_h200 = choose_kernel(r.m, r.k, r.i, DType::kBF16, 132, "NVIDIA H200");
    ASSERT_GE(on_h200, 0);
    EXPECT_STREQ(registry[on_h200].config.name, "k2_pingpong_128x64x64_s6_tma");
  }
}

// A device takes the table measured on a device of its exact name; any other name, none, or an
// empty one, the first table (the default).
TEST(TuningTable, SelectDeviceTableByExactName) {
  TuningTable h200, h100, unnamed;
  h200.device = "NVIDIA H200";
  h100.device = "NVIDIA H100 80GB HBM3";
  const std::vector<const TuningTable*> tables = {&h200, &h100, &unnamed};
  EXPECT_EQ(select_device_table(tables, "NVIDIA H100 80GB HBM3"), &h100);
  EXPECT_EQ(select_device_table(tables, "NVIDIA H200"), &h200);
  EXPECT_EQ(select_device_table(tables, "NVIDIA H100 80GB HBM"), &h200);  // a prefix
  EXPECT_EQ(select_device_table(tables, "NVIDIA H100 NVL"), &h200);
  EXPECT_EQ(select_device_table(tables, "NVIDIA H100 80GB HBM3 "), &h200);
  EXPECT_EQ(select_device_table(tables, "NVIDIA B200"), &h200);
  EXPECT_EQ(select_device_table(tables, ""), &h200);  // not the table without a device record
  EXPECT_EQ(select_device_table(tables, nullptr), &h200);
  const std::vector<const TuningTable*> h100_first = {&h100, &h200};
  EXPECT_EQ(select_device_table(h100_first, "NVIDIA H200"), &h200);
  EXPECT_EQ(select_device_table(h100_first, nullptr), &h100);
}

// The library's own dispatch (choose_kernel: real registry, embedded tables) gives every row of
// each embedded table its config on a device of the table's name and SM count, and leaves other
// SM counts to the cost model.
TEST(TuningTable, ChooseKernelFollowsTheEmbeddedTable) {
  ScopedEnv force("TILEGLU_FORCE_CONFIG", "");
  ScopedEnv acc("TILEGLU_ACCUMULATION", "");
  ScopedEnv log("TILEGLU_LOG_DISPATCH", "");
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  for (const TuningTable* t : embedded_tables()) {
    const char* device = t->device.c_str();
    for (const TableRow& row : t->rows) {
      SCOPED_TRACE(t->device + " m=" + std::to_string(row.m) + " k=" + std::to_string(row.k) +
                   " i=" + std::to_string(row.i));
      EXPECT_EQ(choose_kernel(row.m, row.k, row.i, row.dtype, t->sm_count, device), row.config);
      const int other_sms = t->sm_count + 1;
      EXPECT_EQ(choose_kernel(row.m, row.k, row.i, row.dtype, other_sms, device),
                choose_kernel_from(registry, count, row.m, row.k, row.i, row.dtype, other_sms));
    }
  }
  // No name: the default table.
  const TuningTable* d = embedded_table();
  for (const TableRow& row : d->rows) {
    EXPECT_EQ(choose_kernel(row.m, row.k, row.i, row.dtype, d->sm_count), row.config);
  }
}

// The C API: a bad file is rejected with the file and line, the previous table stays; the device
// check comes after parsing, so a valid file on a machine without a GPU reports the device.
TEST(TuningTableApi, LoadRejectsBadFilesAndNamesTheFault) {
  EXPECT_EQ(tileglu_load_tuning_table(""), TILEGLU_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(tileglu_last_error_message(), "path is empty");
  EXPECT_EQ(tileglu_load_tuning_table("/nonexistent/tileglu.table"), TILEGLU_ERROR_INVALID_TABLE);
  EXPECT_NE(std::string(tileglu_last_error_message()).find("/nonexistent/tileglu.table: cannot open"),
            std::string::npos)
      << tileglu_last_error_message();

  const std::string path = testing::TempDir() + "tileglu_bad.table";
  {
    std::ofstream f(path);
    f << "tileglu-tuning-table 1\nlibrary " << library_version()
      << "\nsm_count 132\nbf16 896 4864 1 k2_gone_128x64x64_s6\n";
  }
  EXPECT_EQ(tileglu_load_tuning_table(path.c_str()), TILEGLU_ERROR_INVALID_TABLE);
  EXPECT_EQ(std::string(tileglu_last_error_message()),
            path + ":4: stale: configuration 'k2_gone_128x64x64_s6' is not in this build (re-run the tuner)");
  EXPECT_EQ(user_table(), nullptr);
  std::remove(path.c_str());

  // Unloading always succeeds.
  EXPECT_EQ(tileglu_load_tuning_table(nullptr), TILEGLU_SUCCESS);
  EXPECT_STREQ(tileglu_last_error_message(), "");
}

TEST(TuningTableApi, ConfigEnumerationMatchesTheRegistry) {
  int count = 0;
  const KernelEntry* registry = kernel_registry(&count);
  ASSERT_EQ(tileglu_config_count(), count);
  for (int idx = 0; idx < count; ++idx) {
    tileglu_config_t cfg{};
    ASSERT_EQ(tileglu_config_at(idx, &cfg), TILEGLU_SUCCESS);
    EXPECT_STREQ(cfg.name, registry[idx].config.name);
    EXPECT_EQ(cfg.tile_n, registry[idx].config.tile_n);
  }
  tileglu_config_t cfg{};
  EXPECT_EQ(tileglu_config_at(count, &cfg), TILEGLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(std::string(tileglu_last_error_message()),
            "index (=" + std::to_string(count) + ") must be in [0, " + std::to_string(count) + ")");
  EXPECT_EQ(tileglu_config_at(-1, &cfg), TILEGLU_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tileglu_config_at(0, nullptr), TILEGLU_ERROR_NULL_POINTER);
}

}  // namespace
}  // namespace dispatch
}  // namespace tileglu
