/* Tiers and plan files through the C API from C99: mlacheck_plan_open_tier opens a named tier's
 * shipped plan file (its property sweep within a space when given), mlacheck_plan_open_file a plan
 * file the test writes in argv[1] (created); an unknown tier is refused naming the tiers, and a
 * malformed line is MLACHECK_ERROR_IO naming file:line. Exit status 0 when every check holds. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "c99_checks.h"

static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (f == NULL) return;
  fputs(text, f);
  fclose(f);
}

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : "plan_file_work";
  mkdir(dir, 0755);

  mlacheck_plan* plan = NULL;
  int64_t size = 0;
  mlacheck_case* c = NULL;
  const char* id = NULL;
  OK(mlacheck_plan_open_tier("smoke", NULL, &plan));
  OK(mlacheck_plan_size(plan, &size));
  CHECK(size > 100);
  OK(mlacheck_case_open(plan, 0, &c));
  OK(mlacheck_case_id(c, &id));
  CHECK(strncmp(id, "oracle-", 7) == 0); /* smoke.plan starts with the oracle self-checks */
  mlacheck_case_free(c);
  mlacheck_plan_free(plan);

  const char *text = NULL, *excludes = NULL;
  OK(mlacheck_plan_open_tier("smoke", "heads=16..128", &plan));
  OK(mlacheck_plan_space(plan, &text, &excludes));
  CHECK(strstr(text, "heads=16..128") != NULL && strstr(excludes, "heads < 16") != NULL);
  mlacheck_plan_free(plan);

  plan = NULL;
  CHECK(mlacheck_plan_open_tier("huge", NULL, &plan) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_plan_open_tier: tier 'huge' is not one of smoke, pre-merge, nightly") ==
        mlacheck_last_error());

  char path[4096];
  snprintf(path, sizeof path, "%s/two.plan", dir);
  write_file(path, "# two property cases\nproperties seed=3 size=2\n");
  OK(mlacheck_plan_open_file(path, NULL, &plan));
  OK(mlacheck_plan_size(plan, &size));
  CHECK(size == 2);
  mlacheck_plan_free(plan);

  snprintf(path, sizeof path, "%s/bad.plan", dir);
  write_file(path, "scenarios\nproperties size=many\n");
  CHECK(mlacheck_plan_open_file(path, NULL, &plan) == MLACHECK_ERROR_IO);
  CHECK(strstr(mlacheck_last_error(), "bad.plan:2: ") != NULL);
  CHECK(mlacheck_plan_open_file("", NULL, &plan) == MLACHECK_ERROR_INVALID_ARGUMENT);
  return failures != 0;
}
