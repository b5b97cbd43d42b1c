/* mlacheck_prefetch_* from C99: cases handed out in the order asked, prepared (their oracle
 * outputs there at once), a case whose inputs cannot be made handed out with the error, the end
 * of the list refused, and a prefetch freed mid-way (and after its plan) returning. Exit status 0
 * when every check holds. */
#define _XOPEN_SOURCE 700 /* setrlimit */
#include <string.h>
#include <sys/resource.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

/* 14M cached tokens of 576 channels: a host cache of 32 GB of floats, past the 16 GiB of address
 * space this test allows itself, so making its inputs fails (out of memory) on any machine. */
static const char* kTooLarge =
    "mla_decode:name=too-large;heads=16;tp=1;rank=0;lv=512;rope=64;kv=14000000;q=1;bs=64;"
    "q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=1";

static const char* case_id(mlacheck_case* c) {
  const char* id = NULL;
  OK(mlacheck_case_id(c, &id));
  return id;
}

int main(void) {
  const rlim_t address_space = (rlim_t)16 << 30;
  struct rlimit limit;
  if (getrlimit(RLIMIT_AS, &limit) != 0) return 1;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > address_space) limit.rlim_cur = address_space;
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 1;
  mlacheck_plan* plan = NULL;
  OK(mlacheck_plan_open(MLACHECK_PLAN_PROPERTIES, 3, 8, NULL, &plan));

  /* The order asked, whatever the plan's order; each case as mlacheck_case_open opens it. */
  const int64_t order[] = {5, 0, 3};
  mlacheck_prefetch* ahead = NULL;
  OK(mlacheck_prefetch_open(plan, order, 3, 2, 2, &ahead));
  for (int k = 0; k < 3; ++k) {
    mlacheck_case* taken = NULL;
    mlacheck_case* opened = NULL;
    const char* error = "unset";
    OK(mlacheck_prefetch_next(ahead, &taken, &error));
    OK(mlacheck_case_open(plan, order[k], &opened));
    CHECK(taken != NULL && error == NULL);
    CHECK(strcmp(case_id(taken), case_id(opened)) == 0);
    int32_t kind = -1;
    OK(mlacheck_case_kind_of(taken, &kind));
    if (kind == MLACHECK_CASE_MLA_DECODE) {
      const double *o = NULL, *lse = NULL;
      uint64_t count_o = 0, count_lse = 0;
      OK(mlacheck_case_expected(taken, &o, &count_o, &lse, &count_lse));
      CHECK(o != NULL && count_o > 0 && count_lse > 0);
    }
    mlacheck_case_free(opened);
    mlacheck_case_free(taken);
  }
  mlacheck_case* past = NULL;
  const char* past_error = NULL;
  CHECK(mlacheck_prefetch_next(ahead, &past, &past_error) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "all 3 cases of the prefetch were taken") != NULL);
  mlacheck_prefetch_free(ahead);

  /* Bad arguments are refused with a message. */
  const int64_t outside[] = {8};
  CHECK(mlacheck_prefetch_open(plan, outside, 1, 2, 0, &ahead) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(ahead == NULL && strstr(mlacheck_last_error(), "outside the plan's [0, 8)") != NULL);
  CHECK(mlacheck_prefetch_open(plan, order, 3, -1, 0, &ahead) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "lookahead -1 must be >= 0 (0: the library's default)") != NULL);

  /* Lookahead 0 is the library's default: every case comes, in order. */
  OK(mlacheck_prefetch_open(plan, order, 3, 0, 0, &ahead));
  for (int k = 0; k < 3; ++k) {
    mlacheck_case* c = NULL;
    const char* c_error = NULL;
    OK(mlacheck_prefetch_next(ahead, &c, &c_error));
    CHECK(c != NULL && c_error == NULL);
    mlacheck_case_free(c);
  }
  mlacheck_prefetch_free(ahead);
  ahead = NULL;

  /* Freed mid-way, after its plan: what is under way finishes, the rest never starts. */
  const int64_t all[] = {0, 1, 2, 3, 4, 5, 6, 7};
  OK(mlacheck_prefetch_open(plan, all, 8, 4, 0, &ahead));
  mlacheck_plan_free(plan);
  mlacheck_case* first = NULL;
  const char* first_error = NULL;
  OK(mlacheck_prefetch_next(ahead, &first, &first_error));
  CHECK(first != NULL && first_error == NULL);
  mlacheck_prefetch_free(ahead);
  mlacheck_case_free(first);  /* a case taken is the caller's, whole */
  mlacheck_prefetch_free(NULL);

  /* A case whose inputs cannot be made: handed out with the error its inputs call raises. */
  OK(mlacheck_plan_open_repro(kTooLarge, &plan));
  const int64_t only[] = {0};
  OK(mlacheck_prefetch_open(plan, only, 1, 1, 1, &ahead));
  mlacheck_case* broken = NULL;
  const char* error = NULL;
  OK(mlacheck_prefetch_next(ahead, &broken, &error));
  CHECK(broken != NULL && error != NULL && strcmp(error, "mlacheck_case_inputs: out of memory") == 0);
  mlacheck_prefetch_free(ahead);
  mlacheck_case_free(broken);
  mlacheck_plan_free(plan);
  return failures != 0;
}
