/* Shrinking through the harness C API from C99: a judge callback that opens each candidate's case
 * and records what its "backend" did. A backend that errors whenever a case has 2+ requests keeps
 * shrinking while it errors (a case of one request passes, so it is the smallest that still
 * fails); a case that does not fail is kept; a NULL verdict stops the shrink; bad input is
 * refused with a message. Exit status 0 when every check holds. */
#include <string.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

static const char* kRepro = "mla_decode:name=c-shrink;heads=16;lv=32;rope=16;kv=21,3,9,40;q=2,1,1,3;bs=4;seed=9";

struct judge_state {
  mlacheck_verdict* last; /* freed at the next call and at the end */
  int calls;
  int fail_from_call;    /* return NULL from this call on (0: never) */
  int errors_from_batch; /* cases of this many requests or more are ERRORED; others SKIPPED */
};

static const mlacheck_verdict* judge(const char* repro, void* user) {
  struct judge_state* s = (struct judge_state*)user;
  mlacheck_plan* plan = NULL;
  mlacheck_case* c = NULL;
  mlacheck_outcome* o = NULL;
  const mlacheck_mla_problem* p = NULL;
  ++s->calls;
  if (s->fail_from_call > 0 && s->calls >= s->fail_from_call) return NULL;
  mlacheck_verdict_free(s->last);
  s->last = NULL;
  OK(mlacheck_plan_open_repro(repro, &plan));
  OK(mlacheck_case_open(plan, 0, &c));
  OK(mlacheck_case_problem(c, &p));
  OK(mlacheck_outcome_new(c, &o));
  if (p->batch >= s->errors_from_batch) {
    OK(mlacheck_outcome_set_errored(o, "kernel launch failed"));
  } else {
    OK(mlacheck_outcome_set_skipped(o, "one request: not this kernel's shape"));
  }
  OK(mlacheck_outcome_judge(o, &s->last));
  mlacheck_outcome_free(o);
  mlacheck_case_free(c);
  mlacheck_plan_free(plan);
  return s->last;
}

int main(void) {
  struct judge_state s = {NULL, 0, 0, 2};
  mlacheck_shrink* shrink = NULL;
  const char *original = NULL, *shrunk = NULL, *failure = NULL, *stop = NULL, *change = NULL, *step = NULL;
  int32_t run = 0, steps = 0;
  double seconds = -1.0;

  /* Errors with 2+ requests: shrinks to two requests, each step an ERRORED case. */
  OK(mlacheck_shrink_run(kRepro, 200, 600.0, judge, &s, &shrink));
  OK(mlacheck_shrink_summary(shrink, &original, &shrunk, &failure, &stop));
  OK(mlacheck_shrink_counts(shrink, &run, &steps, &seconds));
  CHECK(strcmp(failure, "ERRORED backend_exception: kernel launch failed") == 0);
  CHECK(strcmp(stop, "minimal") == 0);
  CHECK(strstr(original, "kv=21,3,9,40;") != NULL);
  CHECK(strstr(shrunk, ";kv=1*2;") != NULL || strstr(shrunk, ";kv=1,1;") != NULL);
  CHECK(steps > 0 && run >= steps && seconds >= 0.0);
  CHECK(s.calls == 1 + run + 1); /* the original, the candidates, the final re-run */
  OK(mlacheck_shrink_step(shrink, steps - 1, &change, &step));
  CHECK(strcmp(step, shrunk) == 0 && change[0] != '\0');
  CHECK(mlacheck_shrink_step(shrink, steps, &change, &step) == MLACHECK_ERROR_INVALID_ARGUMENT);
  {
    mlacheck_verdict* v = NULL;
    const char *header = NULL, *record = NULL, *state = NULL;
    OK(mlacheck_shrink_verdict(shrink, 0, &v));
    OK(mlacheck_verdict_csv(v, &header, &record));
    CHECK(strstr(header, ",shrunk_repro,skip_reason,error_kind,fail_kind,caught_by\n") != NULL);
    CHECK(strstr(record, shrunk) != NULL && strstr(record, "kv=21,3,9,40;") != NULL);
    mlacheck_verdict_free(v);
    OK(mlacheck_shrink_verdict(shrink, 1, &v));
    OK(mlacheck_verdict_state(v, &state));
    CHECK(strcmp(state, "ERRORED") == 0);
    mlacheck_verdict_free(v);
    CHECK(mlacheck_shrink_verdict(shrink, 2, &v) == MLACHECK_ERROR_INVALID_ARGUMENT);
  }
  mlacheck_shrink_free(shrink);

  /* Never fails: kept, with stop "not failing". */
  s.errors_from_batch = 1000;
  s.calls = 0;
  OK(mlacheck_shrink_run(kRepro, 200, 600.0, judge, &s, &shrink));
  OK(mlacheck_shrink_summary(shrink, &original, &shrunk, &failure, &stop));
  CHECK(strcmp(stop, "not failing") == 0 && strcmp(failure, "") == 0 && strcmp(original, shrunk) == 0);
  CHECK(s.calls == 1);
  mlacheck_shrink_free(shrink);

  /* The step bound. */
  s.errors_from_batch = 2;
  s.calls = 0;
  OK(mlacheck_shrink_run(kRepro, 1, 600.0, judge, &s, &shrink));
  OK(mlacheck_shrink_summary(shrink, &original, &shrunk, &failure, &stop));
  OK(mlacheck_shrink_counts(shrink, &run, &steps, &seconds));
  CHECK(strcmp(stop, "max steps") == 0 && run == 1);
  mlacheck_shrink_free(shrink);

  /* A callback that fails stops the shrink with a message. */
  s.calls = 0;
  s.fail_from_call = 3;
  shrink = (mlacheck_shrink*)&s; /* must be reset to NULL */
  CHECK(mlacheck_shrink_run(kRepro, 200, 600.0, judge, &s, &shrink) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(shrink == NULL);
  CHECK(strstr(mlacheck_last_error(), "judge callback failed") != NULL);

  /* Bad input. */
  CHECK(mlacheck_shrink_run("mla_decode:kv=1;q=1;bogus=2", 200, 600.0, judge, &s, &shrink) ==
        MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "bogus") != NULL);
  CHECK(mlacheck_shrink_run("kv_gather:name=g", 200, 600.0, judge, &s, &shrink) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(mlacheck_shrink_run(kRepro, 200, 600.0, NULL, &s, &shrink) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(mlacheck_shrink_run(kRepro, 0, 600.0, judge, &s, &shrink) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(mlacheck_shrink_run(kRepro, 200, 0.0, judge, &s, &shrink) == MLACHECK_ERROR_INVALID_ARGUMENT);

  mlacheck_verdict_free(s.last);
  if (failures == 0) printf("shrink_c99_test: all checks hold\n");
  return failures != 0;
}
