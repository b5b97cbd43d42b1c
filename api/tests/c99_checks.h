/* The checks of the C99 tests of the harness C API: CHECK counts a failed condition and goes on;
 * OK stops the test when a call fails, printing the library's message. main returns
 * `failures != 0`. */
#ifndef MLACHECK_C99_CHECKS_H
#define MLACHECK_C99_CHECKS_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
