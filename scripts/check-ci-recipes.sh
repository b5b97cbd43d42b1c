#!/usr/bin/env bash
# Checks the CI recipes without running them: no runner, registry or Docker engine is needed, so
# CI can hold every recipe to this on each change.
#   - every YAML file parses, without a key twice; a GitHub Actions workflow has its events, jobs
#     with runs-on and steps, and each step exactly one of run/uses (uses with a version);
#   - every Dockerfile starts with FROM (ARG before it allowed) and holds known instructions only,
#     its exec forms are JSON lists, and it has no heredoc (which this check cannot read);
#   - the shell of every workflow `run:` step (its ${{ ... }} made a placeholder word) and of every
#     shell-form Dockerfile RUN (continuations joined as Docker joins them) passes `bash -n` and
#     `shellcheck -s bash`, or `sh -n` and `shellcheck -s sh` where the shell is sh (a step with
#     `shell: sh`, a Dockerfile without a bash SHELL: Ubuntu's /bin/sh is dash);
#   - every repository script a recipe calls or copies (scripts/*.sh) exists and passes shellcheck.
# The structure and the extraction are scripts/ci_recipe_steps.py's job.
#
# Usage: check-ci-recipes.sh [FOLDER...]
#   Checks the *.yml, *.yaml and *Dockerfile files of each FOLDER (default: docs/examples and
#   docker of this repository). Exit status 0 when all pass, 1 when anything fails (each failure
#   names its file, and job and step or line), 2 when the check cannot run (a missing tool, a
#   folder without recipes). Needs python3 with PyYAML (python3-yaml) and shellcheck.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

if [ "$#" -eq 0 ]; then
  set -- "$root/docs/examples" "$root/docker"
fi
if ! python3 -c 'import yaml' 2> /dev/null; then
  echo "check-ci-recipes: needs python3 with PyYAML (Debian: python3-yaml)" >&2
  exit 2
fi
if ! command -v shellcheck > /dev/null; then
  echo "check-ci-recipes: needs shellcheck (Debian: shellcheck)" >&2
  exit 2
fi

files=()
for folder in "$@"; do
  if [ ! -d "$folder" ]; then
    echo "check-ci-recipes: $folder is not a folder" >&2
    exit 2
  fi
  found=$(find "$folder" -maxdepth 1 -type f \( -name '*.yml' -o -name '*.yaml' \
            -o -name '*Dockerfile' -o -name 'Dockerfile.*' \) | LC_ALL=C sort)
  # A check that finds nothing to check would pass for a mistyped folder.
  if [ -z "$found" ]; then
    echo "check-ci-recipes: $folder holds no YAML file or Dockerfile" >&2
    exit 2
  fi
  mapfile -t -O "${#files[@]}" files <<< "$found"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failures=0
status=0
python3 "$root/scripts/ci_recipe_steps.py" "$root" "$work" "${files[@]}" > "$work/structure.log" || status=$?
cat "$work/structure.log"
case "$status" in
  0) ;;
  1) failures=$(grep -c '^FAIL: ' "$work/structure.log") ;;
  *)
    echo "check-ci-recipes: scripts/ci_recipe_steps.py failed (status $status)" >&2
    exit 2
    ;;
esac

# bash -n, sh -n and shellcheck -f gcc name the snippet and a line in it; say the recipe file's line
# instead where the snippet's lines are the file's (first > 0), else the line within the step.
where_in_recipe() {
  local snippet=$1 first=$2
  awk -v snippet="$snippet" -v first="$first" '
    index($0, snippet ":") == 1 {
      rest = substr($0, length(snippet) + 2)
      if (match(rest, /^ ?(line )?[0-9]+:/)) {
        line = substr(rest, 1, RLENGTH - 1)
        gsub(/[^0-9]/, "", line)
        rest = substr(rest, RLENGTH + 1)
        if (first > 0) print "    line " (first + line - 1) ":" rest
        else print "    line " line " of the step:" rest
        next
      }
      print "    " rest
      next
    }
    { print "    " $0 }'
}

snippets=0
scripts=0
while IFS=$'\t' read -r kind dialect first path label; do
  if [ "$kind" = snippet ]; then
    snippets=$((snippets + 1))
    if [ "$dialect" = bash ]; then syntax=(bash -n); else syntax=(sh -n); fi
    if ! out=$("${syntax[@]}" "$path" 2>&1); then
      failures=$((failures + 1))
      echo "FAIL: $label: ${syntax[*]}:"
      printf '%s\n' "$out" | where_in_recipe "$path" "$first"
      continue
    fi
    if ! out=$(shellcheck -s "$dialect" -f gcc "$path" 2>&1); then
      failures=$((failures + 1))
      echo "FAIL: $label: shellcheck -s $dialect:"
      printf '%s\n' "$out" | where_in_recipe "$path" "$first"
    fi
  else
    scripts=$((scripts + 1))
    if ! out=$(shellcheck -f gcc "$path" 2>&1); then
      failures=$((failures + 1))
      echo "FAIL: $label: shellcheck:"
      printf '%s\n' "$out" | sed 's/^/    /'
    fi
  fi
done < "$work/manifest.tsv"

summary="${#files[@]} recipe files, $snippets shell steps, $scripts scripts they call"
if [ "$failures" -ne 0 ]; then
  echo "check-ci-recipes: $failures problems in $summary" >&2
  exit 1
fi
echo "check-ci-recipes: OK: $summary"
