#!/usr/bin/env python3
"""The shell inside the CI recipes, for scripts/check-ci-recipes.sh, and the recipes' structure.

Usage: ci_recipe_steps.py ROOT OUT_DIR FILE...

FILE is a YAML file (*.yml, *.yaml) or a Dockerfile (*Dockerfile, Dockerfile.*). Every YAML file
must parse; one with `jobs` is a GitHub Actions workflow, and each of its `run:` steps becomes a
snippet, its ${{ ... }} expressions replaced by a placeholder word. Each shell-form RUN of a
Dockerfile becomes a snippet, its backslash continuations joined and its comment lines dropped the
way Docker does, before the shell sees it.

Writes OUT_DIR/<n>.sh and OUT_DIR/manifest.tsv, one line per thing to check:
    snippet <TAB> bash|sh <TAB> first line in the source (0: unknown) <TAB> OUT_DIR/<n>.sh <TAB> label
    script  <TAB> -       <TAB> 0 <TAB> ROOT/scripts/x.sh <TAB> label
(a `script` is a repository script that a recipe calls or copies). Structural problems are printed
as "FAIL: <label>: <what>"; the exit status is 1 if there were any, 0 if not.
"""

import json
import os
import re
import sys

import yaml

PLACEHOLDER = "GHA_EXPR"
EXPRESSION = re.compile(r"\$\{\{.*?\}\}", re.DOTALL)
# A repository script named in a recipe: scripts/x.sh or ./scripts/x.sh, not part of a longer path.
SCRIPT_REF = re.compile(r"(?<![\w./-])(?:\./)?(scripts/[\w.-]+(?:/[\w.-]+)*\.sh)\b")
DOCKER_INSTRUCTIONS = {
    "ADD", "ARG", "CMD", "COPY", "ENTRYPOINT", "ENV", "EXPOSE", "FROM", "HEALTHCHECK", "LABEL",
    "MAINTAINER", "ONBUILD", "RUN", "SHELL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR",
}
# A heredoc (RUN <<EOF) and its terminator; a here-string (<<<) is not one.
HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*[\"']?([A-Za-z_][A-Za-z0-9_]*)")


class Recipes:
    def __init__(self, root, out_dir):
        self.root = root
        self.out_dir = out_dir
        self.rows = []
        self.scripts = {}
        self.problems = 0

    def fail(self, label, what):
        self.problems += 1
        print(f"FAIL: {label}: {what}")

    def snippet(self, text, dialect, first_line, label):
        path = os.path.join(self.out_dir, f"{len(self.rows)}.sh")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
        self.rows.append(("snippet", dialect, str(first_line), path, one_line(label)))
        self.note_scripts(text, label)

    def note_scripts(self, text, label):
        for match in SCRIPT_REF.finditer(text):
            self.scripts.setdefault(match.group(1), label)

    def write_manifest(self):
        for script, label in sorted(self.scripts.items()):
            path = os.path.join(self.root, script)
            if not os.path.isfile(path):
                self.fail(label, f"calls {script}, which does not exist")
                continue
            self.rows.append(("script", "-", "0", path, one_line(f"{script} (called by {label})")))
        with open(os.path.join(self.out_dir, "manifest.tsv"), "w", encoding="utf-8") as f:
            for row in self.rows:
                f.write("\t".join(row) + "\n")


def one_line(text):
    return re.sub(r"\s+", " ", text)


def shown(path, root):
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


# --- GitHub Actions workflows -------------------------------------------------------------------

def pairs(node):
    """The (key text, key node, value node) of a YAML mapping node."""
    return [(k.value if isinstance(k, yaml.ScalarNode) else None, k, v) for k, v in node.value]


def check_duplicate_keys(node, name, recipes):
    """GitHub refuses a mapping with a key twice; PyYAML silently keeps the last one."""
    if isinstance(node, yaml.MappingNode):
        seen = set()
        for key, key_node, value in pairs(node):
            if key is not None and key in seen:
                recipes.fail(f"{name}:{key_node.start_mark.line + 1}", f"key '{key}' appears twice")
            seen.add(key)
            check_duplicate_keys(value, name, recipes)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            check_duplicate_keys(item, name, recipes)


def as_dict(node):
    return {k: v for k, _, v in pairs(node)} if isinstance(node, yaml.MappingNode) else None


def scalar(node):
    return node.value if isinstance(node, yaml.ScalarNode) else None


def shell_dialect(*shell_nodes):
    """bash or sh for the first `shell:` given (step, job defaults, workflow defaults), None for a
    shell this check does not read (python, pwsh, ...). GitHub's default on Linux is bash."""
    for node in shell_nodes:
        shell = scalar(node) if node is not None else None
        if shell:
            program = os.path.basename(shell.split()[0])
            return program if program in ("bash", "sh") else None
    return "bash"


def default_shell(node):
    defaults = as_dict(node) if node is not None else None
    run = as_dict(defaults.get("run")) if defaults else None
    return run.get("shell") if run else None


def check_workflow(doc, name, recipes):
    top = as_dict(doc)
    if "on" not in top:
        recipes.fail(name, "a workflow without 'on:' (the events it runs on)")
    jobs = as_dict(top["jobs"])
    if not jobs:
        recipes.fail(name, "'jobs:' is not a mapping of jobs, or is empty")
        return
    workflow_shell = default_shell(top.get("defaults"))
    for job_id, job_node in jobs.items():
        job = as_dict(job_node)
        where = f"{name}: job '{job_id}'"
        if job is None:
            recipes.fail(where, "is not a mapping")
            continue
        if "uses" in job:  # a call of a reusable workflow: no steps of its own
            continue
        if "runs-on" not in job:
            recipes.fail(where, "has no 'runs-on:'")
        steps = job.get("steps")
        if not isinstance(steps, yaml.SequenceNode) or not steps.value:
            recipes.fail(where, "has no list of steps")
            continue
        job_shell = default_shell(job.get("defaults"))
        for number, step_node in enumerate(steps.value, start=1):
            step = as_dict(step_node)
            if step is None:
                recipes.fail(f"{where}, step {number}", "is not a mapping")
                continue
            run_text = scalar(step.get("run")) or ""
            title = (scalar(step.get("name")) or scalar(step.get("uses"))
                     or run_text.strip().split("\n")[0][:40])
            label = f"{where}, step {number} '{title}' (line {step_node.start_mark.line + 1})"
            if ("run" in step) == ("uses" in step):
                recipes.fail(label, "needs exactly one of 'run:' and 'uses:'")
                continue
            if "uses" in step:
                uses = scalar(step["uses"]) or ""
                if not uses.startswith(("./", "docker://")) and "@" not in uses:
                    recipes.fail(label, f"'uses: {uses}' names no version (owner/action@ref)")
                continue
            run_node = step["run"]
            script = scalar(run_node)
            if not script or not script.strip():
                recipes.fail(label, "'run:' is empty")
                continue
            dialect = shell_dialect(step.get("shell"), job_shell, workflow_shell)
            if dialect is None:
                print(f"note: {label}: not a bash or sh step, its shell is not checked")
                continue
            # A literal block (run: |) keeps its lines, so shellcheck's line numbers map onto the file.
            first_line = run_node.start_mark.line + 2 if run_node.style == "|" else 0
            recipes.snippet(EXPRESSION.sub(PLACEHOLDER, script), dialect, first_line, label)


def check_yaml(path, recipes):
    name = shown(path, recipes.root)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        list(yaml.safe_load_all(text))
        docs = list(yaml.compose_all(text))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        recipes.fail(name, f"not valid YAML: {e}")
        return
    for doc in docs:
        check_duplicate_keys(doc, name, recipes)
        top = as_dict(doc)
        if top is not None and "jobs" in top:
            check_workflow(doc, name, recipes)


# --- Dockerfiles ----------------------------------------------------------------------------------

def dockerfile_instructions(lines, name, recipes):
    """(first line, last line, instruction, arguments) with continuations joined as Docker joins
    them: the backslash and newline removed, comment lines inside an instruction dropped."""
    out = []
    current = None
    heredoc_end = None
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip("\r\n")
        stripped = line.strip()
        if heredoc_end is not None:  # a heredoc's body is no instruction (the heredoc is reported)
            if stripped == heredoc_end:
                heredoc_end = None
            continue
        if current is None:
            if not stripped or stripped.startswith("#"):
                if not out:  # parser directives come before the first instruction
                    directive = re.match(r"#\s*escape\s*=\s*(\S)", stripped)
                    if directive and directive.group(1) != "\\":
                        recipes.fail(f"{name}:{number}", "an escape character other than \\ is not checked")
                continue
            current = [number, number, line.lstrip()]
        else:
            if stripped.startswith("#"):
                continue
            if not stripped:
                recipes.fail(f"{name}:{number}", "an empty line inside a continued instruction")
                continue
            current[1] = number
            current[2] += line
        if current[2].rstrip().endswith("\\"):
            current[2] = current[2].rstrip()[:-1]
            continue
        out.append(current)
        heredoc = HEREDOC.search(current[2])
        if heredoc:
            heredoc_end = heredoc.group(1)
        current = None
    if current is not None:
        recipes.fail(f"{name}:{current[0]}", "the last instruction ends in a backslash")
        out.append(current)
    result = []
    for first, last, text in out:
        parts = text.split(None, 1)
        result.append((first, last, parts[0], parts[1].strip() if len(parts) > 1 else ""))
    return result


def exec_form(args):
    """The list of an exec-form (JSON) argument, None for shell form; raises ValueError if bad."""
    if not args.startswith("["):
        return None
    value = json.loads(args)
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise ValueError("not a non-empty JSON list of strings")
    return value


def check_dockerfile(path, recipes):
    name = shown(path, recipes.root)
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.readlines()
    except (OSError, UnicodeDecodeError) as e:
        recipes.fail(name, f"cannot read: {e}")
        return
    instructions = dockerfile_instructions(lines, name, recipes)
    if not instructions:
        recipes.fail(name, "holds no instructions")
        return
    seen_from = False
    dialect = "sh"  # Docker's default shell, /bin/sh -c; each FROM starts over
    for first, last, word, args in instructions:
        where = f"{name}:{first}" if first == last else f"{name}:{first}-{last}"
        keyword = word.upper()
        label = f"{where} {keyword}"
        if keyword not in DOCKER_INSTRUCTIONS:
            recipes.fail(where, f"'{word}' is not a Dockerfile instruction")
            continue
        if not seen_from and keyword not in ("FROM", "ARG"):
            recipes.fail(where, f"{keyword} before the first FROM (only ARG may come first)")
        if keyword == "FROM":
            seen_from = True
            dialect = "sh"
            if not args:
                recipes.fail(label, "names no image")
        if HEREDOC.search(args):
            recipes.fail(label, "holds a heredoc, which this check does not read: write the "
                                "command with continuations, or as a script in scripts/")
            continue
        if keyword in ("COPY", "ADD"):
            recipes.note_scripts(args, label)
        if keyword in ("RUN", "CMD", "ENTRYPOINT", "SHELL"):
            if keyword == "RUN":
                # Options such as --mount=... come before the command.
                while args.startswith("--"):
                    parts = args.split(None, 1)
                    args = parts[1] if len(parts) > 1 else ""
            if not args:
                recipes.fail(label, "is empty")
                continue
            try:
                form = exec_form(args)
            except ValueError as e:
                recipes.fail(label, f"exec form that is not valid JSON: {e}")
                continue
            if keyword == "SHELL":
                if form is None:
                    recipes.fail(label, "must be in exec (JSON) form")
                    continue
                program = os.path.basename(form[0])
                dialect = program if program in ("bash", "sh") else None
            elif keyword == "RUN" and form is None:
                if dialect is None:
                    print(f"note: {label}: the SHELL is neither bash nor sh, not checked")
                    continue
                recipes.snippet(args, dialect, first, label)
    if not seen_from:
        recipes.fail(name, "has no FROM")


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root, out_dir, files = argv[1], argv[2], argv[3:]
    recipes = Recipes(root, out_dir)
    for path in files:
        base = os.path.basename(path)
        if base.endswith((".yml", ".yaml")):
            check_yaml(path, recipes)
        elif base.endswith("Dockerfile") or base.startswith("Dockerfile."):
            check_dockerfile(path, recipes)
        else:
            recipes.fail(shown(path, root), "neither YAML nor a Dockerfile")
    recipes.write_manifest()
    return 1 if recipes.problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
