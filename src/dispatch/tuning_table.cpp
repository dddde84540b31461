// Measured dispatch tables: parsing, lookup, the embedded default and the user's table
// (format and lookup rules in tuning_table.h).
#include "tuning_table.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "tileglu/tileglu.h"

namespace tileglu {
namespace dispatch {
namespace {

// The embedded tables' texts: kEmbeddedTableText (the default, an H200's) and one per other device
// measured, each generated into its own .inc (scripts/gen_default_table.py --symbol) and listed in
// embedded_tables(): kEmbeddedTableTextH100 (the H100 80GB HBM3's; its rows no H100 tune measured
// are the H200's, standing in).
#include "sm90_default_table.inc"
#include "sm90_default_table_h100.inc"

constexpr int kFormatVersion = 1;

// A whole-token positive int, or false.
bool parse_positive_int(const std::string& token, int* value) {
  if (token.empty() || token[0] == '-' || token[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(token.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || v <= 0 || v > INT_MAX) return false;
  *value = static_cast<int>(v);
  return true;
}

std::string trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return {};
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::mutex g_user_mutex;
std::shared_ptr<const TuningTable> g_user_table;
bool g_env_consumed = false;  // TILEGLU_TUNING_TABLE read, or an API call made it moot

}  // namespace

std::string library_version() {
  return std::to_string(TILEGLU_VERSION_MAJOR) + "." + std::to_string(TILEGLU_VERSION_MINOR) +
         "." + std::to_string(TILEGLU_VERSION_PATCH);
}

int TuningTable::lookup(int m, int k, int i, DType dtype, bool nearest_shape, int* from_k,
                        int* from_i) const {
  if (nearest_shape) {
    // The tuned (K, I) nearest (k, i) on a log scale, each within a factor of 2; ties to the
    // first row's shape. The product of the two ratios orders shapes as |ln K/k| + |ln I/i| does.
    auto ratio = [](int a, int b) { return a > b ? static_cast<double>(a) / b : static_cast<double>(b) / a; };
    int near_k = 0, near_i = 0;
    double best = 0;
    for (const TableRow& row : rows) {
      const double rk = ratio(row.k, k), ri = ratio(row.i, i);
      if (rk > 2.0 || ri > 2.0) continue;
      if (near_k == 0 || rk * ri < best) {
        near_k = row.k;
        near_i = row.i;
        best = rk * ri;
      }
    }
    if (near_k == 0) return -1;
    k = near_k;
    i = near_i;
  }
  if (from_k != nullptr) *from_k = k;
  if (from_i != nullptr) *from_i = i;
  // Rows of this (k, i) in the wanted dtype; failing that, in the other (same tiles, same speed).
  for (int pass = 0; pass < 2; ++pass) {
    int best = -1;
    double best_distance = 0;
    int best_m = 0;
    for (const TableRow& row : rows) {
      if (row.k != k || row.i != i) continue;
      if ((row.dtype == dtype) != (pass == 0)) continue;
      // The ratio of the larger M to the smaller orders rows as |log(row.m / m)| does, without
      // a logarithm on every call.
      const double distance = row.m > m ? static_cast<double>(row.m) / m : static_cast<double>(m) / row.m;
      if (best < 0 || distance < best_distance ||
          (distance == best_distance && row.m > best_m)) {
        best = row.config;
        best_distance = distance;
        best_m = row.m;
      }
    }
    if (best >= 0) return best;
  }
  return -1;
}

bool parse_tuning_table(const std::string& text, const std::string& source,
                        const KernelEntry* entries, int count, TuningTable* table,
                        std::string* error) {
  *table = TuningTable{};
  table->source = source;
  std::istringstream in(text);
  std::string raw;
  int line_no = 0;
  bool have_format = false, have_library = false;
  auto fail = [&](const std::string& what) {
    *error = source + ":" + std::to_string(line_no) + ": " + what;
    return false;
  };
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (!have_format) {
      int version = 0;
      std::string v;
      fields >> v;
      if (key != "tileglu-tuning-table") {
        return fail("not a tileglu tuning table (the first record must be 'tileglu-tuning-table " +
                    std::to_string(kFormatVersion) + "')");
      }
      if (!parse_positive_int(v, &version) || version != kFormatVersion) {
        return fail("format version '" + v + "' is not " + std::to_string(kFormatVersion));
      }
      have_format = true;
      continue;
    }
    if (key == "library") {
      std::string v;
      fields >> v;
      if (v != library_version()) {
        return fail("stale: written by tileglu " + v + ", this is tileglu " + library_version() +
                    " (re-run the tuner)");
      }
      have_library = true;
    } else if (key == "device") {
      std::getline(fields, table->device);
      table->device = trim(table->device);
    } else if (key == "sm_count") {
      std::string v;
      fields >> v;
      if (!parse_positive_int(v, &table->sm_count)) return fail("sm_count '" + v + "' is not a positive integer");
    } else if (key == "bf16" || key == "fp16") {
      std::string k, i, m, name, time, extra;
      fields >> k >> i >> m >> name >> time >> extra;
      TableRow row;
      row.dtype = key == "fp16" ? DType::kFP16 : DType::kBF16;
      if (name.empty()) return fail("a row needs 'dtype K I M config [time_us]'");
      if (!extra.empty()) return fail("unexpected field '" + extra + "' after the time");
      if (!parse_positive_int(k, &row.k) || row.k % 8 != 0) return fail("K '" + k + "' is not a positive multiple of 8");
      if (!parse_positive_int(i, &row.i) || row.i % 8 != 0) return fail("I '" + i + "' is not a positive multiple of 8");
      if (!parse_positive_int(m, &row.m)) return fail("M '" + m + "' is not a positive integer");
      if (!time.empty()) {
        char* end = nullptr;
        const double t = std::strtod(time.c_str(), &end);
        if (*end != '\0' || !(t > 0) || !std::isfinite(t)) return fail("time '" + time + "' is not a positive number");
      }
      for (int idx = 0; idx < count; ++idx) {
        if (name == entries[idx].config.name) row.config = idx;
      }
      if (row.config < 0) {
        return fail("stale: configuration '" + name + "' is not in this build (re-run the tuner)");
      }
      for (const TableRow& other : table->rows) {
        if (other.dtype == row.dtype && other.k == row.k && other.i == row.i && other.m == row.m) {
          return fail("a second row for " + key + " K=" + k + " I=" + i + " M=" + m);
        }
      }
      table->rows.push_back(row);
    } else {
      return fail("unknown record '" + key + "'");
    }
  }
  if (!have_format) {
    line_no = 0;
    return fail("empty: not a tileglu tuning table");
  }
  if (!have_library) return fail("no 'library' record");
  if (table->sm_count <= 0) return fail("no 'sm_count' record");
  return true;
}

const std::vector<const TuningTable*>& embedded_tables() {
  static const std::vector<TuningTable> parsed = [] {
    const struct {
      const char* text;
      const char* source;
    } texts[] = {{kEmbeddedTableText, "embedded"}, {kEmbeddedTableTextH100, "embedded"}};
    int count = 0;
    const KernelEntry* entries = kernel_registry(&count);
    std::vector<TuningTable> tables;
    for (const auto& embedded : texts) {
      TuningTable t;
      std::string error;
      if (!parse_tuning_table(embedded.text, embedded.source, entries, count, &t, &error)) {
        t = TuningTable{};
        t.source = std::string(embedded.source) + " (invalid: " + error + ")";
      } else if (!tables.empty()) {
        t.source += " (" + t.device + ")";  // the dispatch log names which device's table ran
      }
      tables.push_back(std::move(t));
    }
    return tables;
  }();
  static const std::vector<const TuningTable*> pointers = [] {
    std::vector<const TuningTable*> p;
    for (const TuningTable& t : parsed) p.push_back(&t);
    return p;
  }();
  return pointers;
}

const TuningTable* select_device_table(const std::vector<const TuningTable*>& tables,
                                       const char* device_name) {
  if (device_name != nullptr && device_name[0] != '\0') {
    for (const TuningTable* t : tables) {
      if (t->device == device_name) return t;
    }
  }
  return tables.front();
}

const TuningTable* embedded_table(const char* device_name) {
  return select_device_table(embedded_tables(), device_name);
}

std::shared_ptr<const TuningTable> user_table() {
  std::lock_guard<std::mutex> lock(g_user_mutex);
  if (!g_env_consumed) {
    g_env_consumed = true;
    const char* path = std::getenv("TILEGLU_TUNING_TABLE");
    if (path != nullptr && path[0] != '\0') {
      std::string error;
      g_user_table = load_tuning_table_file(path, &error);
      if (!g_user_table) {
        std::fprintf(stderr,
                     "tileglu: warning: TILEGLU_TUNING_TABLE rejected, using the embedded "
                     "default: %s\n",
                     error.c_str());
      }
    }
  }
  return g_user_table;
}

void set_user_table(std::shared_ptr<const TuningTable> table) {
  std::lock_guard<std::mutex> lock(g_user_mutex);
  g_env_consumed = true;  // an explicit load or unload wins over the environment
  g_user_table = std::move(table);
}

std::shared_ptr<const TuningTable> load_tuning_table_file(const std::string& path,
                                                          std::string* error) {
  std::ifstream file(path);
  if (!file) {
    *error = path + ": cannot open (" + std::strerror(errno) + ")";
    return nullptr;
  }
  std::ostringstream text;
  text << file.rdbuf();
  int count = 0;
  const KernelEntry* entries = kernel_registry(&count);
  auto table = std::make_shared<TuningTable>();
  if (!parse_tuning_table(text.str(), path, entries, count, table.get(), error)) return nullptr;
  return table;
}

}  // namespace dispatch
}  // namespace tileglu
