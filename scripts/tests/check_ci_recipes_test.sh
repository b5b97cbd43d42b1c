#!/usr/bin/env bash
# scripts/check-ci-recipes.sh against the repository's own recipes, which must pass, and against
# recipes broken on purpose, each of which must fail with its file, and job and step or line, named:
# a check that cannot fail proves nothing. Also that each GPU workflow runs in its Dockerfile's base. Exit status 77 (a skip to CTest) when the check's tools
# are missing: .ci/run runs the check itself and fails there instead.
# Usage: check_ci_recipes_test.sh <source dir> <scratch dir>
set -euo pipefail
src=$1
work=$2
check=$src/scripts/check-ci-recipes.sh
fail() { echo "FAIL: $*"; exit 1; }

if ! command -v shellcheck > /dev/null || ! python3 -c 'import yaml' 2> /dev/null; then
  echo "SKIP: needs shellcheck and python3's PyYAML (Debian: shellcheck python3-yaml)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/broken" "$work/good" "$work/empty"

# Runs the check on the folders given; sets out and rc.
run_check() {
  rc=0
  out=$("$check" "$@" 2>&1) || rc=$?
}
expect_line() {
  printf '%s\n' "$out" | grep -qF -- "$1" || fail "no line with '$1' in:"$'\n'"$out"
}

run_check
[ "$rc" -eq 0 ] || fail "the repository's recipes do not pass (status $rc):"$'\n'"$out"
expect_line "check-ci-recipes: OK: "
real=$out

# Each GPU workflow runs in the base image of its Dockerfile, so the image and the CI build alike.
same_base() {
  local workflow=$src/docs/examples/$1 dockerfile=$src/docker/$2 arg=$3 image base
  image=$(awk '$1 == "image:" {print $2; exit}' "$workflow")
  base=$(sed -n "s/^ARG $arg=//p" "$dockerfile")
  if [ -z "$image" ] || [ "$image" != "$base" ]; then
    fail "$1 runs in '$image', $2's $arg is '$base'"
  fi
}
same_base amd-gpu-ci.yml rocm.Dockerfile ROCM_IMAGE
same_base nvidia-gpu-ci.yml cuda.Dockerfile CUDA_IMAGE

# A workflow: a step whose shell does not parse, one that parses but shellcheck rejects, an action
# without a version, a call of a script that does not exist, and a key given twice.
cat > "$work/broken/ci.yml" <<'YAML'
name: broken
on: push
jobs:
  build:
    runs-on: [self-hosted, linux]
    steps:
      - uses: actions/checkout
      - name: Unclosed if
        run: |
          if [ "${{ github.event_name }}" = push ]; then
            echo push
      - name: Loop over ls
        run: |
          echo start
          for f in $(ls); do echo "$f"; done
      - name: Missing script
        run: ./scripts/no-such-script.sh
        run: ./scripts/no-such-script.sh
YAML
printf 'jobs: [\n' > "$work/broken/unparsable.yaml"
# A Dockerfile: a RUN before FROM, an unknown instruction, a RUN whose joined lines do not parse,
# a heredoc, and an exec form that is not JSON.
cat > "$work/broken/bad.Dockerfile" <<'DOCKER'
RUN echo too early
FROM ubuntu:24.04
RUNN echo typo
SHELL ["/bin/bash", "-c"]
RUN if true; then \
      echo never closed
RUN <<EOF
echo body
EOF
CMD ["mlacheck", "run"
DOCKER
run_check "$work/broken"
[ "$rc" -eq 1 ] || fail "broken recipes: status $rc, expected 1:"$'\n'"$out"
expect_line "ci.yml: job 'build', step 2 'Unclosed if' (line 8): bash -n:"
expect_line "ci.yml: job 'build', step 3 'Loop over ls' (line 12): shellcheck -s bash:"
expect_line "line 15:10: error: Iterating over ls output is fragile"  # the workflow's own line
expect_line "ci.yml: job 'build', step 1 'actions/checkout' (line 7): 'uses: actions/checkout' names no version"
expect_line "calls scripts/no-such-script.sh, which does not exist"
expect_line "ci.yml:18: key 'run' appears twice"
expect_line "unparsable.yaml: not valid YAML"
expect_line "bad.Dockerfile:1: RUN before the first FROM"
expect_line "bad.Dockerfile:3: 'RUNN' is not a Dockerfile instruction"
expect_line "bad.Dockerfile:5-6 RUN: bash -n:"
expect_line "bad.Dockerfile:7 RUN: holds a heredoc"
expect_line "bad.Dockerfile:10 CMD: exec form that is not valid JSON"
printf '%s\n' "$out" | grep -Eq "'(echo|EOF)' is not a Dockerfile instruction" && fail "a heredoc's body read as instructions"

# What must pass: a Dockerfile RUN that parses only once continued lines are joined and the comment
# line among them dropped, as Docker does; a step with `shell: python`, which is not shell; an ARG
# before FROM; a ${{ }} expression where the shell needs a word.
cat > "$work/good/Dockerfile" <<'DOCKER'
# syntax=docker/dockerfile:1
ARG BASE=ubuntu:24.04
FROM ${BASE}
RUN if true; then \
      # Docker drops this line before the shell sees the command
      echo joined; \
    fi
CMD ["true"]
DOCKER
cat > "$work/good/ci.yaml" <<'YAML'
on: pull_request
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - run: print("not shell")
        shell: python
      - run: ${{ matrix.command }} --flag
YAML
run_check "$work/good"
[ "$rc" -eq 0 ] || fail "valid recipes rejected (status $rc):"$'\n'"$out"
expect_line "check-ci-recipes: OK: 2 recipe files, 2 shell steps"

run_check "$work/empty"
[ "$rc" -eq 2 ] || fail "a folder without recipes: status $rc, expected 2"
expect_line "holds no YAML file or Dockerfile"

echo "PASS: the repository's recipes pass (${real#check-ci-recipes: OK: }); each broken recipe fails, named"
