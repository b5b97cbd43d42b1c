/* The C API for callers that run cases in processes of their own, from C99: a case's watchdog
 * limit grows with its work over the base, a lost case's row is ERRORED in harness/lost_case.hpp's
 * words (each kind; a bad kind and a missing detail refused), and a row sent as report CSV becomes
 * the same verdict (a torn one refused). Exit status 0 when every check holds. */
#include <string.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

static mlacheck_case* open_case(mlacheck_plan** plan, const char* repro) {
  mlacheck_case* c = NULL;
  OK(mlacheck_plan_open_repro(repro, plan));
  OK(mlacheck_case_open(*plan, 0, &c));
  return c;
}

/* The ERRORED verdict of `c` lost `how`; its record is copied into `record` (size bytes). */
static void lost_row(mlacheck_case* c, int32_t how, const char* detail, double limit_s, char* record, size_t size) {
  mlacheck_outcome* o = NULL;
  mlacheck_verdict* v = NULL;
  const char* header = NULL;
  const char* text = NULL;
  const char* state = NULL;
  OK(mlacheck_outcome_new(c, &o));
  OK(mlacheck_outcome_set_lost(o, how, "the case's worker process", detail, limit_s));
  OK(mlacheck_outcome_judge(o, &v));
  OK(mlacheck_verdict_state(v, &state));
  CHECK(strcmp(state, "ERRORED") == 0);
  OK(mlacheck_verdict_csv(v, &header, &text));
  CHECK(strlen(text) < size);
  strcpy(record, text);
  mlacheck_verdict_free(v);
  mlacheck_outcome_free(o);
}

int main(void) {
  mlacheck_plan* small_plan = NULL;
  mlacheck_plan* large_plan = NULL;
  mlacheck_case* small = open_case(&small_plan, "mla_decode:name=small;heads=16;tp=1;lv=64;rope=16;kv=37;q=1;bs=4;"
                                                "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=1");
  mlacheck_case* large = open_case(&large_plan, "mla_decode:name=large;heads=128;tp=1;lv=512;rope=64;kv=16384*8;q=4*8;"
                                                "bs=64;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=1");
  double small_s = 0.0, small_base_s = 0.0, large_s = 0.0;
  OK(mlacheck_case_timeout_s(small, 0.0, &small_s));
  OK(mlacheck_case_timeout_s(small, 10.0, &small_base_s));
  OK(mlacheck_case_timeout_s(large, 10.0, &large_s));
  CHECK(small_base_s > 9.999 && small_base_s - small_s < 10.001 && large_s > small_base_s);
  CHECK(mlacheck_case_timeout_s(small, -1.0, &small_s) == MLACHECK_ERROR_INVALID_ARGUMENT);

  char record[8192];
  lost_row(small, MLACHECK_LOST_PROCESS_DIED, "signal 11 (Segmentation fault)", 0.0, record, sizeof record);
  CHECK(strstr(record, "the case's worker process died while running this case: signal 11 (Segmentation fault)"));
  lost_row(small, MLACHECK_LOST_TIMED_OUT, NULL, 130.0, record, sizeof record);
  CHECK(strstr(record, "timed out after 130 s (watchdog); the case's worker process was killed"));
  lost_row(small, MLACHECK_LOST_DEVICE_LOST, "an illegal memory access was encountered", 0.0, record, sizeof record);
  CHECK(strstr(record, "device lost: an illegal memory access was encountered"));

  mlacheck_outcome* o = NULL;
  OK(mlacheck_outcome_new(small, &o));
  CHECK(mlacheck_outcome_set_lost(o, 7, "p", "d", 0.0) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(mlacheck_outcome_set_lost(o, MLACHECK_LOST_PROCESS_DIED, "p", "", 0.0) == MLACHECK_ERROR_INVALID_ARGUMENT);
  mlacheck_outcome_free(o);

  /* A row sent as CSV is the same row here; a torn one (no line end) is refused. */
  mlacheck_verdict* again = NULL;
  const char* header = NULL;
  const char* text = NULL;
  mlacheck_verdict* v = NULL;
  OK(mlacheck_outcome_new(small, &o));
  OK(mlacheck_outcome_set_lost(o, MLACHECK_LOST_PROCESS_DIED, "p", "exit status 0", 0.0));
  OK(mlacheck_outcome_judge(o, &v));
  OK(mlacheck_verdict_csv(v, &header, &text));
  OK(mlacheck_verdict_from_csv(header, text, &again));
  const char* header_again = NULL;
  const char* text_again = NULL;
  OK(mlacheck_verdict_csv(again, &header_again, &text_again));
  CHECK(strcmp(text, text_again) == 0);
  strcpy(record, text);
  record[strlen(record) - 1] = '\0';
  mlacheck_verdict* torn = NULL;
  CHECK(mlacheck_verdict_from_csv(header, record, &torn) == MLACHECK_ERROR_INVALID_ARGUMENT && torn == NULL);
  mlacheck_verdict_free(again);
  mlacheck_verdict_free(v);
  mlacheck_outcome_free(o);
  mlacheck_case_free(small);
  mlacheck_case_free(large);
  mlacheck_plan_free(small_plan);
  mlacheck_plan_free(large_plan);
  return failures != 0;
}
