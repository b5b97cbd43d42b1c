/* Support spaces through the C API from C99: mlacheck_plan_open_space draws every property case
 * inside the space (checked on each case's problem), mlacheck_plan_space and
 * mlacheck_space_describe give the canonical text and what it excludes, a malformed space is
 * refused naming the field, and a report with a space writes report.html's backend-space section
 * (argv[1], created). Exit status 0 when every check holds. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

static const char* kSpace = "lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/bf16;heads=16..128;bs=16,64;max_q=4";

int main(int argc, char** argv) {
  const char* report_dir = argc > 1 ? argv[1] : "space_report";
  mkdir(report_dir, 0755);

  mlacheck_plan* plan = NULL;
  CHECK(mlacheck_plan_open_space(MLACHECK_PLAN_PROPERTIES, 1, 40, NULL, "heads=64..16", &plan) ==
        MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_plan_open_space: ") == mlacheck_last_error());
  CHECK(strstr(mlacheck_last_error(), "'heads'") != NULL);

  OK(mlacheck_plan_open_space(MLACHECK_PLAN_PROPERTIES, 1, 40, NULL, kSpace, &plan));
  int64_t size = 0;
  OK(mlacheck_plan_size(plan, &size));
  CHECK(size == 40);
  for (int64_t i = 0; i < size; ++i) {
    mlacheck_case* c = NULL;
    const mlacheck_mla_problem* p = NULL;
    OK(mlacheck_case_open(plan, i, &c));
    OK(mlacheck_case_problem(c, &p)); /* an mla_decode case: no kv_gather within a space */
    CHECK(p->kv_lora_rank == 512 && (p->rope_dim == 64 || p->rope_dim == 0));
    CHECK(p->q_dtype == MLACHECK_DTYPE_BF16 && p->o_dtype == MLACHECK_DTYPE_BF16);
    CHECK(p->kv_dtype == MLACHECK_DTYPE_BF16 || p->kv_dtype == MLACHECK_DTYPE_FP8_E4M3FN);
    CHECK(p->heads >= 16 && p->heads <= 128 && (p->block_size == 16 || p->block_size == 64) && p->max_q_len <= 4);
    mlacheck_case_free(c);
  }
  const char *text = NULL, *excludes = NULL;
  OK(mlacheck_plan_space(plan, &text, &excludes));
  CHECK(strncmp(text, "space:lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/bf16;heads=16..128;bs=16,64;", 93) == 0);
  CHECK(strstr(excludes, "fp8_e4m3fnuz") != NULL && strstr(excludes, "heads < 16") != NULL);
  mlacheck_plan_free(plan);

  OK(mlacheck_plan_open(MLACHECK_PLAN_PROPERTIES, 1, 4, NULL, &plan));
  OK(mlacheck_plan_space(plan, &text, &excludes));
  CHECK(text[0] == '\0' && excludes[0] == '\0');
  mlacheck_plan_free(plan);

  OK(mlacheck_space_describe("", &text, &excludes));
  CHECK(strstr(text, "lv_rope=*;dtypes=*;") != NULL && excludes[0] == '\0');
  CHECK(mlacheck_space_describe("bs=0", &text, &excludes) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "'bs'") != NULL);

  mlacheck_report* report = NULL;
  OK(mlacheck_report_open(report_dir, &report));
  CHECK(mlacheck_report_set_space(report, "graph=maybe") == MLACHECK_ERROR_INVALID_ARGUMENT);
  OK(mlacheck_report_set_space(report, kSpace));
  OK(mlacheck_report_finish(report, "space"));
  mlacheck_report_free(report);
  char path[4096];
  snprintf(path, sizeof path, "%s/report.html", report_dir);
  FILE* html = fopen(path, "rb");
  CHECK(html != NULL);
  static char page[1 << 20];
  const size_t n = fread(page, 1, sizeof page - 1, html);
  page[n] = '\0';
  fclose(html);
  CHECK(strstr(page, "id=\"backend-space\"") != NULL && strstr(page, "fp8 queries") != NULL);
  if (failures == 0) puts("space C API checks passed");
  return failures == 0 ? 0 : 1;
}
