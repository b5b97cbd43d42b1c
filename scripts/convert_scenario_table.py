#!/usr/bin/python3
"""Converts a scenario or known-bug table from its named-column schema to cases as repro strings.

Until issue 27 item 4, scenarios/upstream.csv stated a case in 22 named columns (heads, tp, kv_lens,
... leaves) and scenarios/known_bugs.csv matched cases on op, kv_dtype, heads, q_len and a repro
substring. Now a scenario row holds its case as a repro string (column `case`, the grammar of
core/repro_format.hpp) and a known-bug row a partial repro pattern (scenarios/README.md). This script
rewrites a table of the old schema into the new one, keeping every comment, blank line and row on
its line, so that each converted scenario keeps its `file:line`:

    scripts/convert_scenario_table.py scenarios upstream_old.csv > scenarios/upstream.csv
    scripts/convert_scenario_table.py known-bugs known_bugs_old.csv > scenarios/known_bugs.csv

A scenario's cell lists exactly the old row's non-empty case cells under their repro keys, so the
row parses to the case it was (scenarios/tests/scenario_conversion_test.cpp holds every converted
row to the case the old loader made of it). A cell the new schema cannot say stops the conversion
with the table's line and column.
"""
import csv
import io
import sys

OLD_SCENARIO_COLUMNS = (
    "id", "upstream", "reference", "model", "title", "op", "fault", "caught_by", "heads", "tp", "lv", "rope",
    "kv_lens", "q_lens", "block_size", "q_dtype", "kv_dtype", "kv_scale", "o_dtype", "path", "layout", "interleaved",
    "kv_heads", "head_size", "seed", "note", "first_block", "steps", "joins", "leaves")
NEW_SCENARIO_COLUMNS = ("id", "upstream", "reference", "model", "title", "fault", "caught_by", "case", "note")

# Old column -> repro key, in the order to_repro writes the keys (core/mla_problem.cpp,
# core/gather_problem.cpp).
MLA_KEYS = (("heads", "heads"), ("tp", "tp"), ("lv", "lv"), ("rope", "rope"), ("kv_lens", "kv"),
            ("q_lens", "q"), ("block_size", "bs"), ("q_dtype", "q_dtype"), ("kv_dtype", "kv_dtype"),
            ("o_dtype", "o_dtype"), ("kv_scale", "kv_scale"), ("path", "path"), ("seed", "seed"),
            ("first_block", "first_block"), ("steps", "steps"), ("joins", "join"), ("leaves", "leave"))
GATHER_KEYS = (("layout", "layout"), ("interleaved", "interleaved"), ("kv_heads", "kv_heads"),
               ("head_size", "head_size"), ("block_size", "bs"), ("kv_lens", "kv"), ("kv_dtype", "cache_dtype"),
               ("o_dtype", "out_dtype"), ("seed", "seed"))
# The old table read interleaved as 0/1 or false/true; a repro string as 0/1.
BOOLEANS = {"0": "0", "1": "1", "false": "0", "true": "1"}

OLD_KNOWN_BUG_COLUMNS = ("id", "reference", "op", "path", "kv_dtype", "heads", "q_len", "backend", "platform",
                         "repro", "note")
NEW_KNOWN_BUG_COLUMNS = ("id", "reference", "case", "path", "backend", "platform", "rank_heads", "q_len", "note")


class ConversionError(Exception):
    pass


def cells_of(line):
    """One CSV line as libfccp reads it: comma-separated, double quotes, spaces and tabs trimmed."""
    return [cell.strip(" \t") for cell in next(csv.reader([line]))]


def csv_line(cells):
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(cells)
    return out.getvalue()


def scenario_case(row, fail):
    op = row["op"]
    if op == "mla_decode":
        keys, other = MLA_KEYS, GATHER_KEYS
    elif op == "kv_gather":
        keys, other = GATHER_KEYS, MLA_KEYS
    else:
        fail("op", f"'{op}' is not one of mla_decode, kv_gather")
    own = {column for column, _ in keys}
    for column, _ in other:
        if column not in own and row[column]:
            fail(column, f"op {op} has no such field")
    fields = []
    for column, key in keys:
        value = row[column]
        if not value:
            continue
        if column == "interleaved":
            if value not in BOOLEANS:
                fail(column, f"'{value}' is not one of 0, 1, false, true")
            value = BOOLEANS[value]
        if ";" in value or "=" in value:
            fail(column, f"'{value}' holds ';' or '=', which no repro value does")
        fields.append(f"{key}={value}")
    return f"{op}:" + ";".join(fields)


def convert_scenario(row, fail):
    new = dict(row, case=scenario_case(row, fail))
    return [new[c] for c in NEW_SCENARIO_COLUMNS]


def convert_known_bug(row, fail):
    op = row["op"]
    if op not in ("mla_decode", "kv_gather"):
        fail("op", "a known bug now names its op (the prefix of its case pattern); split the entry per op")
    fields = []
    if row["kv_dtype"]:
        fields.append(("kv_dtype" if op == "mla_decode" else "cache_dtype") + "=" + row["kv_dtype"])
    rank_heads = ""
    if row["heads"]:
        if op == "mla_decode":
            rank_heads = row["heads"]  # per-rank query heads: no one repro key says it
        else:
            fields.append("kv_heads=" + row["heads"])
    if row["q_len"] and op != "mla_decode":
        fail("q_len", "only mla_decode cases have query lengths")
    # The old repro cell matched a substring; only whole key=value fields become pattern fields.
    for part in filter(None, row["repro"].split(";")):
        if part.count("=") != 1 or not part.split("=")[0] or not part.split("=")[1]:
            fail("repro", f"'{row['repro']}' is not a list of whole key=value fields; write the pattern by hand")
        fields.append(part)
    pattern = f"{op}:" + ";".join(fields)
    new = dict(row, case=pattern, rank_heads=rank_heads)
    return [new[c] for c in NEW_KNOWN_BUG_COLUMNS]


def convert(kind, path, lines):
    old_columns, new_columns, convert_row = {
        "scenarios": (OLD_SCENARIO_COLUMNS, NEW_SCENARIO_COLUMNS, convert_scenario),
        "known-bugs": (OLD_KNOWN_BUG_COLUMNS, NEW_KNOWN_BUG_COLUMNS, convert_known_bug),
    }[kind]
    out, header = [], None
    for number, line in enumerate(lines, start=1):
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            out.append(line)
            continue
        cells = cells_of(line)
        if header is None:
            if sorted(cells) != sorted(old_columns):
                raise ConversionError(f"{path}:{number}: the header is not the old schema's {len(old_columns)} columns")
            header = cells
            out.append(",".join(new_columns))
            continue
        if len(cells) != len(header):
            raise ConversionError(f"{path}:{number}: {len(cells)} cells, the header has {len(header)}")
        row = dict(zip(header, cells))

        def fail(column, reason, number=number):
            raise ConversionError(f"{path}:{number}: column '{column}': {reason}")

        out.append(csv_line(convert_row(row, fail)))
    if header is None:
        raise ConversionError(f"{path}: no header line")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 3 or argv[1] not in ("scenarios", "known-bugs"):
        print(f"usage: {argv[0]} scenarios|known-bugs OLD_TABLE.csv > NEW_TABLE.csv", file=sys.stderr)
        return 2
    with open(argv[2], encoding="utf-8") as f:
        lines = f.readlines()
    try:
        sys.stdout.write(convert(argv[1], argv[2], lines))
    except ConversionError as e:
        print(f"convert_scenario_table: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
