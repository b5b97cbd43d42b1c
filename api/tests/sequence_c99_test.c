/* Decode sequences through the C API from C99: the sequence's shape, its steps opened in order as
 * one-step cases (the step's lengths, the rows it wrote), each judged with the oracle's own
 * outputs, the sequence's row from its steps' verdicts, an errored step ending the sequence, and
 * the calls a sequence refuses. Exit status 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

/* Two slots over three steps: request 1 joins at step 1 with 3 tokens; both gain a token a step. */
static const char* kSequence =
    "mla_decode:name=seq;heads=16;lv=32;rope=16;kv=5,3;q=1,1;bs=4;steps=3;join=0,1;leave=3,3;"
    "q_dtype=f32;kv_dtype=f16;o_dtype=f32;seed=5";
enum { kSteps = 3, kBatch = 2, kHeads = 16, kLv = 32, kLk = 48, kTokens = 2 };

/* The verdict of `step` when the backend returned the oracle's own outputs (errored: it raised). */
static mlacheck_verdict* judge_step(mlacheck_case* step, int errored) {
  mlacheck_outcome* outcome = NULL;
  mlacheck_verdict* verdict = NULL;
  OK(mlacheck_outcome_new(step, &outcome));
  OK(mlacheck_outcome_set_backend(outcome, "oracle-echo", "1", "cpu", NULL));
  if (errored) {
    OK(mlacheck_outcome_set_errored(outcome, "backend raised RuntimeError: lost the plan"));
  } else {
    const double *o = NULL, *lse = NULL;
    uint64_t count_o = 0, count_lse = 0;
    OK(mlacheck_case_expected(step, &o, &count_o, &lse, &count_lse));
    CHECK(count_o == (uint64_t)kTokens * kHeads * kLv && count_lse == (uint64_t)kTokens * kHeads);
    static float o32[kTokens * kHeads * kLv], lse32[kTokens * kHeads];
    for (uint64_t i = 0; i < count_o; ++i) o32[i] = (float)o[i];
    for (uint64_t i = 0; i < count_lse; ++i) lse32[i] = (float)lse[i];
    const int64_t o_shape[3] = {kTokens, kHeads, kLv}, lse_shape[2] = {kTokens, kHeads};
    const mlacheck_tensor o_tensor = contiguous(o32, MLACHECK_DTYPE_F32, 3, o_shape);
    const mlacheck_tensor lse_tensor = contiguous(lse32, MLACHECK_DTYPE_F32, 2, lse_shape);
    OK(mlacheck_outcome_set_o(outcome, &o_tensor, NULL));
    OK(mlacheck_outcome_set_lse(outcome, &lse_tensor, MLACHECK_LSE_NATURAL, NULL));
  }
  OK(mlacheck_outcome_judge(outcome, &verdict));
  mlacheck_outcome_free(outcome);
  return verdict;
}

static const char* state_of(const mlacheck_verdict* v) {
  const char* state = NULL;
  OK(mlacheck_verdict_state(v, &state));
  return state;
}

static void check_shape_and_steps(void) {
  mlacheck_case* seq = open_one(kSequence);
  const char* reason = "unset";
  OK(mlacheck_case_unsupported_reason(seq, &reason));
  CHECK(reason == NULL); /* a sequence is offered: step by step */

  mlacheck_sequence_info info;
  memset(&info, 0, sizeof info);
  info.struct_size = sizeof info;
  OK(mlacheck_case_sequence(seq, &info));
  CHECK(info.steps == kSteps && info.batch == kBatch);
  CHECK(info.joins[0] == 0 && info.joins[1] == 1 && info.leaves[0] == 3 && info.leaves[1] == 3);
  CHECK(info.max_kv_len == 7);             /* request 0: 5, 6, 7 tokens */
  CHECK(info.max_blocks_per_request == 2); /* ceil(7 / 4) */

  /* The sequence's own inputs, oracle and whole verdict are refused, naming the calls to use. */
  mlacheck_mla_tensors in;
  memset(&in, 0, sizeof in);
  in.struct_size = sizeof in;
  CHECK(mlacheck_case_inputs(seq, &in) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_sequence_step_open") != NULL);
  const double *o = NULL, *lse = NULL;
  uint64_t count_o = 0, count_lse = 0;
  CHECK(mlacheck_case_expected(seq, &o, &count_o, &lse, &count_lse) == MLACHECK_ERROR_INVALID_ARGUMENT);

  mlacheck_verdict* verdicts[kSteps];
  const int32_t expected_kv[kSteps][kBatch] = {{5, 0}, {6, 3}, {7, 4}};
  const int64_t expected_written[kSteps] = {5, 1 + 3, 2};
  for (int k = 0; k < kSteps; ++k) {
    mlacheck_case* step = NULL;
    OK(mlacheck_sequence_step_open(seq, &step));
    const mlacheck_mla_problem* p = NULL;
    OK(mlacheck_case_problem(step, &p));
    CHECK(p->kv_lens[0] == expected_kv[k][0] && p->kv_lens[1] == expected_kv[k][1]);
    const char* id = NULL;
    OK(mlacheck_case_id(step, &id));
    CHECK(strcmp(id, "seq") == 0); /* the sequence's id: its verdict is a row of the sequence */
    const int64_t* slots = NULL;
    mlacheck_tensor rows;
    OK(mlacheck_case_written_rows(step, &slots, &rows));
    CHECK(rows.shape[0] == expected_written[k] && rows.shape[1] == kLk && rows.dtype == MLACHECK_DTYPE_F16);
    for (int64_t i = 0; i < rows.shape[0]; ++i) CHECK(slots[i] >= 0 && slots[i] < p->num_blocks * p->block_size);
    verdicts[k] = judge_step(step, 0);
    CHECK(strcmp(state_of(verdicts[k]), "PASSED") == 0);
    mlacheck_case_free(step);
  }
  mlacheck_case* past = NULL;
  CHECK(mlacheck_sequence_step_open(seq, &past) == MLACHECK_ERROR_INVALID_ARGUMENT && past == NULL);
  CHECK(strstr(mlacheck_last_error(), "every one was opened") != NULL);

  mlacheck_verdict* row = NULL;
  CHECK(mlacheck_sequence_judge(seq, (const mlacheck_verdict* const*)verdicts, 0, &row) ==
        MLACHECK_ERROR_INVALID_ARGUMENT);
  /* two verdicts of three, none ending the sequence: refused */
  CHECK(mlacheck_sequence_judge(seq, (const mlacheck_verdict* const*)verdicts, 2, &row) ==
        MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "2 of 3 steps") != NULL);
  OK(mlacheck_sequence_judge(seq, (const mlacheck_verdict* const*)verdicts, kSteps, &row));
  CHECK(strcmp(state_of(row), "PASSED") == 0);
  const char *header = NULL, *record = NULL;
  OK(mlacheck_verdict_csv(row, &header, &record));
  CHECK(strncmp(record, "seq,", 4) == 0);
  mlacheck_verdict_free(row);
  for (int k = 0; k < kSteps; ++k) mlacheck_verdict_free(verdicts[k]);
  mlacheck_case_free(seq);
}

static void check_an_errored_step_ends_the_sequence(void) {
  mlacheck_case* seq = open_one(kSequence);
  mlacheck_verdict* verdicts[2];
  for (int k = 0; k < 2; ++k) {
    mlacheck_case* step = NULL;
    OK(mlacheck_sequence_step_open(seq, &step));
    verdicts[k] = judge_step(step, k == 1);
    mlacheck_case_free(step);
  }
  mlacheck_verdict* row = NULL;
  OK(mlacheck_sequence_judge(seq, (const mlacheck_verdict* const*)verdicts, 2, &row));
  CHECK(strcmp(state_of(row), "ERRORED") == 0);
  const char *header = NULL, *record = NULL;
  OK(mlacheck_verdict_csv(row, &header, &record));
  CHECK(strstr(record, "step 1 of 3: backend raised RuntimeError: lost the plan (steps 2..2 not run), "
                       "steps 0..0 passed") != NULL);
  mlacheck_verdict_free(row);
  /* a verdict of another case is refused, naming it */
  mlacheck_case* other = open_one("mla_decode:name=other;heads=16;lv=32;rope=16;kv=5;q=1;bs=4;q_dtype=f32;"
                                  "kv_dtype=f16;o_dtype=f32;seed=5");
  mlacheck_verdict* foreign = judge_step(other, 1);
  CHECK(mlacheck_sequence_judge(seq, (const mlacheck_verdict* const*)&foreign, 1, &row) ==
        MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "'other'") != NULL);
  /* a one-step case has no steps to open and wrote no rows */
  mlacheck_case* step = NULL;
  CHECK(mlacheck_sequence_step_open(other, &step) == MLACHECK_ERROR_INVALID_ARGUMENT);
  const int64_t* slots = NULL;
  mlacheck_tensor rows;
  CHECK(mlacheck_case_written_rows(other, &slots, &rows) == MLACHECK_ERROR_WRONG_CASE);
  mlacheck_verdict_free(foreign);
  mlacheck_case_free(other);
  for (int k = 0; k < 2; ++k) mlacheck_verdict_free(verdicts[k]);
  mlacheck_case_free(seq);
}

int main(void) {
  check_shape_and_steps();
  check_an_errored_step_ends_the_sequence();
  if (failures != 0) fprintf(stderr, "%d check(s) failed\n", failures);
  return failures != 0;
}
