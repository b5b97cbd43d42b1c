/* The checks of the C99 tests of the harness C API: CHECK counts a failed condition and goes on;
 * OK stops the test when a call fails, printing the library's message. main returns
 * `failures != 0`. And the calls several tests make the same way: a case opened from its repro
 * string, a tensor view of a contiguous host array. */
#ifndef MLACHECK_C99_CHECKS_H
#define MLACHECK_C99_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlacheck/harness_api.h"

static int failures = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
      ++failures;                                                                \
    }                                                                            \
  } while (0)

#define OK(call)                                                                                    \
  do {                                                                                              \
    mlacheck_status status_ = (call);                                                               \
    if (status_ != MLACHECK_OK) {                                                                   \
      fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #call, (int)status_,        \
              mlacheck_last_error());                                                               \
      exit(1);                                                                                      \
    }                                                                                               \
  } while (0)

/* The one case of the plan that `repro` describes. */
static inline mlacheck_case* open_one(const char* repro) {
  mlacheck_plan* plan = NULL;
  mlacheck_case* c = NULL;
  OK(mlacheck_plan_open_repro(repro, &plan));
  OK(mlacheck_case_open(plan, 0, &c));
  mlacheck_plan_free(plan);
  return c;
}

/* A row-major tensor of `shape` over `data`: the last dimension contiguous. */
static inline mlacheck_tensor contiguous(void* data, int32_t dtype, int32_t ndim, const int64_t* shape) {
  mlacheck_tensor t;
  memset(&t, 0, sizeof t);
  t.data = data;
  t.dtype = dtype;
  t.ndim = ndim;
  int64_t stride = 1;
  for (int32_t k = ndim - 1; k >= 0; --k) {
    t.shape[k] = shape[k];
    t.strides[k] = stride;
    stride *= shape[k];
  }
  return t;
}

#endif
