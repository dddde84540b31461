// Helpers shared by the dispatch tests (test_heuristics.cpp, test_tuning_table.cpp): a launcher
// that is never called, for registry entries made up by a test, and an environment variable set
// for one scope.
#pragma once

#include <cstdlib>
#include <string>

#include <cuda_runtime_api.h>

#include "kernels/swiglu_params.h"

namespace tileglu_test {

inline cudaError_t fake_launch(const tileglu::SwigluParams&, int, cudaStream_t) {
  return cudaSuccess;
}

// Sets (or, with nullptr, unsets) `name` until the end of the scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value) {
      setenv(name, value, 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace tileglu_test
