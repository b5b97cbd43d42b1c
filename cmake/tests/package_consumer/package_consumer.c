/* Opens the installed library's scenario plan, which it must find under its own prefix, and
 * prints the API version and the plan's size: "harness API 1, N scenarios". */
#include <stdio.h>

#include "mlacheck/backend_abi.h"
#include "mlacheck/harness_api.h"

int main(void) {
  mlacheck_plan* plan = NULL;
  if (mlacheck_plan_open(MLACHECK_PLAN_SCENARIOS, 1, -1, NULL, &plan) != MLACHECK_OK) {
    fprintf(stderr, "package_consumer: %s\n", mlacheck_last_error());
    return 1;
  }
  int64_t count = 0;
  if (mlacheck_plan_size(plan, &count) != MLACHECK_OK) {
    fprintf(stderr, "package_consumer: %s\n", mlacheck_last_error());
    mlacheck_plan_free(plan);
    return 1;
  }
  printf("harness API %u, %lld scenarios\n", (unsigned)mlacheck_harness_api_version(), (long long)count);
  mlacheck_plan_free(plan);
  return count > 0 ? 0 : 1;
}
