/* The harness C API from C99, as a non-C++ caller sees it: the header compiles as C99, a case
 * goes from plan to verdict row, wrong outputs fail naming the tensor, poison shows unwritten
 * elements, a changed guard byte fails naming the buffer, bad input is refused with a message,
 * and a report folder is written (argv[1], created) and merged into argv[1]/merged. Exit status 0
 * when every check holds. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

static const char* kRepro =
    "mla_decode:name=c-case;heads=16;lv=32;rope=16;kv=21,3;q=2,1;bs=4;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=9";

/* O codes of the oracle's output rounded to o_dtype (bf16): what a correct kernel writes. */
static uint16_t* exact_o(mlacheck_case* c, uint64_t* count, float** lse_out) {
  const double *o = NULL, *lse = NULL;
  uint64_t n_o = 0, n_lse = 0;
  OK(mlacheck_case_expected(c, &o, &n_o, &lse, &n_lse));
  float* values = malloc(n_o * sizeof(float));
  uint16_t* codes = malloc(n_o * sizeof(uint16_t));
  float* lse_values = malloc(n_lse * sizeof(float));
  for (uint64_t i = 0; i < n_o; ++i) values[i] = (float)o[i];
  for (uint64_t i = 0; i < n_lse; ++i) lse_values[i] = (float)lse[i];
  OK(mlacheck_encode(MLACHECK_DTYPE_BF16, values, n_o, codes));
  free(values);
  *count = n_o;
  *lse_out = lse_values;
  return codes;
}

/* The verdict's state and its CSV record (owned by the verdict). */
static const char* judge(mlacheck_outcome* outcome, mlacheck_verdict** verdict, const char** record) {
  const char *state = NULL, *header = NULL;
  OK(mlacheck_outcome_judge(outcome, verdict));
  OK(mlacheck_verdict_state(*verdict, &state));
  OK(mlacheck_verdict_csv(*verdict, &header, record));
  CHECK(strncmp(header, "id,op,repro,", 12) == 0);
  return state;
}

int main(int argc, char** argv) {
  const char* report_dir = argc > 1 ? argv[1] : NULL;
  if (report_dir != NULL) mkdir(report_dir, 0755); /* an existing folder is fine */
  CHECK(mlacheck_harness_api_version() == MLACHECK_HARNESS_API_VERSION);

  mlacheck_plan* plan = NULL;
  CHECK(mlacheck_plan_open_repro("mla_decode:heads=x", &plan) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(plan == NULL);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_plan_open_repro: ") == mlacheck_last_error());
  CHECK(strstr(mlacheck_last_error(), "'heads'") != NULL);

  OK(mlacheck_plan_open_repro(kRepro, &plan));
  int64_t size = 0;
  OK(mlacheck_plan_size(plan, &size));
  CHECK(size == 1);
  mlacheck_case* c = NULL;
  CHECK(mlacheck_case_open(plan, 1, &c) == MLACHECK_ERROR_INVALID_ARGUMENT);
  OK(mlacheck_case_open(plan, 0, &c));
  mlacheck_plan_free(plan); /* the case does not depend on the plan */

  const mlacheck_mla_problem* p = NULL;
  OK(mlacheck_case_problem(c, &p));
  CHECK(p->struct_size == sizeof(mlacheck_mla_problem));
  CHECK(strcmp(p->name, "c-case") == 0);
  CHECK(p->heads == 16 && p->lk == 48 && p->batch == 2 && p->total_q_tokens == 3 && p->max_blocks_per_request == 6);
  CHECK(p->kv_lens[0] == 21 && p->q_lens[1] == 1 && p->o_dtype == MLACHECK_DTYPE_BF16);

  mlacheck_mla_tensors in;
  memset(&in, 0, sizeof in);
  CHECK(mlacheck_case_inputs(c, &in) == MLACHECK_ERROR_INVALID_ARGUMENT); /* struct_size not set */
  in.struct_size = sizeof in;
  OK(mlacheck_case_inputs(c, &in));
  CHECK(in.q.dtype == MLACHECK_DTYPE_BF16 && in.q.shape[0] == 3 && in.q.shape[2] == 48 && in.q.strides[0] == 16 * 48);
  CHECK(in.block_table.shape[0] == 2 && in.block_table.shape[1] == 6);
  const int32_t* table = in.block_table.data;
  CHECK(table[5] >= 0 && table[6] >= 0 && table[7] == -1); /* request 1 holds one block */
  const int32_t* qo = in.qo_indptr.data;
  CHECK(qo[0] == 0 && qo[1] == 2 && qo[2] == 3);
  CHECK(in.o.data == NULL && in.o.shape[2] == 32 && in.lse.dtype == MLACHECK_DTYPE_F32);

  uint64_t n_o = 0;
  float* lse = NULL;
  uint16_t* o = exact_o(c, &n_o, &lse);
  const int64_t o_shape[3] = {3, 16, 32};
  const int64_t lse_shape[2] = {3, 16};
  mlacheck_tensor o_tensor = contiguous(o, MLACHECK_DTYPE_BF16, 3, o_shape);
  mlacheck_tensor lse_tensor = contiguous(lse, MLACHECK_DTYPE_F32, 2, lse_shape);
  mlacheck_verdict* verdict = NULL;
  const char* record = NULL;

  /* correct outputs pass */
  mlacheck_outcome* outcome = NULL;
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_backend(outcome, "c-test", "1", "cpu", NULL));
  OK(mlacheck_outcome_set_o(outcome, &o_tensor, NULL));
  OK(mlacheck_outcome_set_lse(outcome, &lse_tensor, MLACHECK_LSE_NATURAL, NULL));
  CHECK(strcmp(judge(outcome, &verdict, &record), "PASSED") == 0);
  CHECK(strstr(record, "c-case,mla_decode,") == record);
  int32_t failure = 1;
  OK(mlacheck_verdict_is_failure(verdict, &failure));
  CHECK(failure == 0);
  mlacheck_report* report = NULL;
  if (report_dir != NULL) {
    OK(mlacheck_report_open(report_dir, &report));
    OK(mlacheck_report_append(report, verdict));
    CHECK(mlacheck_report_append(report, verdict) == MLACHECK_ERROR_INVALID_ARGUMENT); /* repeated id */
  }
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);

  /* one wrong element fails naming O */
  const uint16_t saved = o[100];
  o[100] = 0x4000; /* 2.0: far outside any bound on values within [-1, 1] */
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_o(outcome, &o_tensor, NULL));
  CHECK(strcmp(judge(outcome, &verdict, &record), "FAILED") == 0);
  /* the reason cell holds commas, so report.csv quotes it */
  CHECK(strstr(record, ",FAILED,\"O: 1 of 1536 elements outside abs ") != NULL);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  o[100] = saved;

  /* poison left in O counts as unwritten */
  uint32_t poison = 0;
  OK(mlacheck_poison_word(MLACHECK_DTYPE_BF16, &poison));
  CHECK(poison == 0x7F9A7F9Au); /* a signalling NaN: no conversion writes it */
  for (int i = 0; i < 32; ++i) o[i] = (uint16_t)poison;
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_set_o(outcome, &o_tensor, NULL));
  CHECK(strcmp(judge(outcome, &verdict, &record), "FAILED") == 0);
  CHECK(strstr(record, ",FAILED,\"O: 32 of 1536 elements never written (first at request 0, query token 0, head 0,") != NULL);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  free(o);
  o = exact_o(c, &n_o, &lse);
  o_tensor.data = o;

  /* a staged O whose back guard was written fails naming the buffer */
  uint64_t guard = 0;
  OK(mlacheck_guard_bytes(&guard));
  const uint64_t data_bytes = n_o * sizeof(uint16_t);
  unsigned char* allocation = malloc(2 * guard + data_bytes);
  OK(mlacheck_guard_pattern(allocation, guard));
  OK(mlacheck_guard_pattern(allocation + guard + data_bytes, guard));
  memcpy(allocation + guard, o, data_bytes);
  allocation[guard + data_bytes + 1] ^= 0x5A;
  OK(mlacheck_outcome_new(c, &outcome));
  OK(mlacheck_outcome_check_guards(outcome, "o", allocation, data_bytes));
  OK(mlacheck_outcome_set_o(outcome, &o_tensor, NULL));
  CHECK(strcmp(judge(outcome, &verdict, &record), "FAILED") == 0);
  CHECK(strstr(record, "FAILED,guard canary overwritten: o(after)") != NULL);
  CHECK(strstr(record, "broken: o(after)") != NULL);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  free(allocation);

  /* a wrong shape is refused naming given and needed */
  OK(mlacheck_outcome_new(c, &outcome));
  mlacheck_tensor short_o = o_tensor;
  short_o.shape[0] = 2;
  CHECK(mlacheck_outcome_set_o(outcome, &short_o, NULL) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(mlacheck_last_error(),
               "mlacheck_outcome_set_o: O: shape [2, 16, 32], the problem needs [total_q_tokens=3, heads=16, "
               "kv_lora_rank=32]") == 0);
  CHECK(mlacheck_outcome_judge(outcome, &verdict) == MLACHECK_ERROR_INVALID_ARGUMENT); /* no O */
  OK(mlacheck_outcome_set_errored(outcome, "returned a short O"));
  CHECK(strcmp(judge(outcome, &verdict, &record), "ERRORED") == 0);
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  mlacheck_case_free(c);
  free(o);
  free(lse);

  /* an oracle self-check runs without a backend */
  OK(mlacheck_plan_open(MLACHECK_PLAN_DEFAULT, 1, 0, NULL, &plan));
  OK(mlacheck_case_open(plan, 0, &c));
  int32_t kind = -1;
  OK(mlacheck_case_kind_of(c, &kind));
  CHECK(kind == MLACHECK_CASE_ORACLE_SELF_CHECK);
  OK(mlacheck_outcome_new(c, &outcome));
  CHECK(strcmp(judge(outcome, &verdict, &record), "PASSED") == 0);
  CHECK(strstr(record, ",oracle-plain,,cpu,") != NULL); /* backend, no version, device */
  CHECK(strstr(record, ",oracle,") != NULL);                /* path */
  if (report != NULL) OK(mlacheck_report_append(report, verdict));
  mlacheck_verdict_free(verdict);
  mlacheck_outcome_free(outcome);
  mlacheck_case_free(c);
  mlacheck_plan_free(plan);

  if (report != NULL) {
    OK(mlacheck_report_finish(report, "C99 test"));
    mlacheck_report_free(report);
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "%s/junit.xml", report_dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    snprintf(path, sizeof path, "%s/report.html", report_dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);

    /* the report merged into a folder of its own; given twice, its ids repeat and are refused */
    char csv[4096], merged[4096];
    snprintf(csv, sizeof csv, "%s/report.csv", report_dir);
    snprintf(merged, sizeof merged, "%s/merged", report_dir);
    const char* inputs[2] = {csv, csv};
    int64_t rows = 0;
    OK(mlacheck_report_merge(inputs, 1, merged, "C99 merge", &rows));
    CHECK(rows == 2); /* c-case and the oracle self-check */
    snprintf(path, sizeof path, "%s/merged/junit.xml", report_dir);
    CHECK(stat(path, &st) == 0 && st.st_size > 0);
    CHECK(mlacheck_report_merge(inputs, 2, merged, NULL, NULL) == MLACHECK_ERROR_IO);
    CHECK(strstr(mlacheck_last_error(), "mlacheck_report_merge: duplicate id 'c-case' in ") == mlacheck_last_error());
  }

  if (failures == 0) printf("harness C API from C99: every check held\n");
  return failures == 0 ? 0 : 1;
}
