/* The C API's verdicts go through the settle step every route uses (plan/case_settle.hpp): a
 * FAILED verdict matching the plan's known-bug table (written here, into argv[1]) is KNOWN_BUG
 * with its data kept, and without the table FAILED; a curated case the caller's backend refuses
 * is SKIPPED with its reason (an external backend: not checked, never a pass) and its typed kind,
 * as is a caller's timed_out error and memory skip (mlacheck_verdict_disposition); a missing or
 * malformed table is refused naming the file. Exit status 0 when every check holds. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

static const char* kRepro =
    "mla_decode:name=settle-case;heads=16;lv=32;rope=16;kv=21,3;q=2,1;bs=4;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;"
    "seed=9";
static const char* kHeader = "id,reference,case,path,backend,platform,rank_heads,q_len,note\n";

static void write_file(const char* path, const char* a, const char* b) {
  FILE* f = fopen(path, "w");
  if (f == NULL) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(1);
  }
  fputs(a, f);
  fputs(b, f);
  fclose(f);
}

/* The state of the case's verdict when the backend wrote all-zero O (wrong: the oracle's O is
 * not zero), and its record copied into `record` (size bytes). */
static void judge_zero_o(mlacheck_plan* plan, char* state, char* record, size_t size) {
  mlacheck_case* c = NULL;
  OK(mlacheck_case_open(plan, 0, &c));
  static uint16_t zeros[3 * 16 * 32];
  mlacheck_tensor o;
  memset(&o, 0, sizeof o);
  o.data = zeros;
  o.dtype = MLACHECK_DTYPE_BF16;
  o.ndim = 3;
  o.shape[0] = 3, o.shape[1] = 16, o.shape[2] = 32;
  o.strides[0] = 16 * 32, o.strides[1] = 32, o.strides[2] = 1;
  mlacheck_outcome* outcome = NULL;
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_backend(outcome, "c-test", "1", "cpu", NULL));
  OK(mlacheck_outcome_set_o(outcome, &o, NULL));
  mlacheck_verdict* verdict = NULL;
  const char *s = NULL, *header = NULL, *r = NULL;
  OK(mlacheck_outcome_judge(outcome, &verdict));
  OK(mlacheck_verdict_state(verdict, &s));
  OK(mlacheck_verdict_csv(verdict, &header, &r));
  snprintf(state, 32, "%s", s);
  snprintf(record, size, "%s", r);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  mlacheck_case_free(c);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: settle_c99_test <scratch folder>\n");
    return 2;
  }
  mkdir(argv[1], 0755);
  char table[1024], malformed[1024];
  snprintf(table, sizeof table, "%s/known_bugs.csv", argv[1]);
  snprintf(malformed, sizeof malformed, "%s/malformed_known_bugs.csv", argv[1]);
  write_file(table, kHeader, "c-bug,issue 7,\"mla_decode:kv=21,3\",,,,,,zero O\n");
  write_file(malformed, kHeader, "everything,ref,,,,,,,covers all\n");

  mlacheck_plan* plan = NULL;
  OK(mlacheck_plan_open_repro(kRepro, &plan));
  char state[32], record[4096];

  /* the shipped table has no entry for this case: FAILED */
  judge_zero_o(plan, state, record, sizeof record);
  CHECK(strcmp(state, "FAILED") == 0);

  /* the test's table excuses it: KNOWN_BUG, the reason keeps the comparison's words */
  OK(mlacheck_plan_set_known_bugs(plan, table));
  judge_zero_o(plan, state, record, sizeof record);
  CHECK(strcmp(state, "KNOWN_BUG") == 0);
  CHECK(strstr(record, ",KNOWN_BUG,\"known bug c-bug (issue 7): O: ") != NULL);

  /* no table: FAILED again */
  OK(mlacheck_plan_set_known_bugs(plan, ""));
  judge_zero_o(plan, state, record, sizeof record);
  CHECK(strcmp(state, "FAILED") == 0);

  /* a curated case the caller's backend refuses: SKIPPED with its reason, not a failure */
  OK(mlacheck_plan_set_known_bugs(plan, table));
  mlacheck_case* c = NULL;
  OK(mlacheck_case_open(plan, 0, &c));
  mlacheck_outcome* outcome = NULL;
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_backend(outcome, "c-test", "1", "cpu", NULL));
  OK(mlacheck_outcome_set_skipped(outcome, "c-test takes one request only"));
  mlacheck_verdict* verdict = NULL;
  const char *s = NULL, *header = NULL, *r = NULL;
  OK(mlacheck_outcome_judge(outcome, &verdict));
  OK(mlacheck_verdict_state(verdict, &s));
  OK(mlacheck_verdict_csv(verdict, &header, &r));
  CHECK(strcmp(s, "SKIPPED") == 0);
  CHECK(strstr(r, ",SKIPPED,c-test takes one request only,") != NULL);
  int32_t failure = 1;
  OK(mlacheck_verdict_is_failure(verdict, &failure));
  CHECK(failure == 0);
  /* its typed disposition: unsupported, no other kind, caught by nothing */
  const char *skip = NULL, *error = NULL, *fail = NULL, *caught = NULL;
  OK(mlacheck_verdict_disposition(verdict, &skip, &error, &fail, &caught));
  CHECK(strcmp(skip, "unsupported") == 0 && strcmp(error, "") == 0 && strcmp(fail, "") == 0 && strcmp(caught, "") == 0);
  CHECK(strstr(r, ",unsupported,,,\n") != NULL);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  mlacheck_case_free(c);

  /* a worker that hung on the case: ERRORED timed_out, caught by a crash, whatever the words say
   * (without the table, which would make it KNOWN_BUG) */
  OK(mlacheck_plan_set_known_bugs(plan, ""));
  OK(mlacheck_case_open(plan, 0, &c));
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_errored(outcome, "backend raised ValueError: bad shape"));
  OK(mlacheck_outcome_set_error_kind(outcome, "timed_out"));
  CHECK(mlacheck_outcome_set_error_kind(outcome, "segfault") == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "'segfault'") != NULL);
  CHECK(mlacheck_outcome_set_skip_reason(outcome, "unknown") == MLACHECK_ERROR_INVALID_ARGUMENT);
  OK(mlacheck_outcome_judge(outcome, &verdict));
  OK(mlacheck_verdict_disposition(verdict, NULL, &error, NULL, &caught));
  CHECK(strcmp(error, "timed_out") == 0 && strcmp(caught, "crash") == 0);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);

  /* a memory skip keeps its kind */
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_skipped(outcome, "needs 90 GiB"));
  OK(mlacheck_outcome_set_skip_reason(outcome, "not_enough_memory"));
  OK(mlacheck_outcome_judge(outcome, &verdict));
  OK(mlacheck_verdict_disposition(verdict, &skip, NULL, NULL, NULL));
  CHECK(strcmp(skip, "not_enough_memory") == 0);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  mlacheck_case_free(c);
  OK(mlacheck_plan_set_known_bugs(plan, table));

  /* a missing or malformed table is refused naming the file; the plan keeps its table */
  char missing[1100];
  snprintf(missing, sizeof missing, "%s/none.csv", argv[1]);
  CHECK(mlacheck_plan_set_known_bugs(plan, missing) == MLACHECK_ERROR_IO);
  CHECK(strstr(mlacheck_last_error(), "none.csv") != NULL);
  CHECK(mlacheck_plan_set_known_bugs(plan, malformed) == MLACHECK_ERROR_IO);
  CHECK(strstr(mlacheck_last_error(), "malformed_known_bugs.csv:2") != NULL);
  CHECK(mlacheck_plan_set_known_bugs(NULL, table) == MLACHECK_ERROR_INVALID_ARGUMENT);
  judge_zero_o(plan, state, record, sizeof record);
  CHECK(strcmp(state, "KNOWN_BUG") == 0);

  mlacheck_plan_free(plan);
  return failures != 0;
}
