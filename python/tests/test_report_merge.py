"""mlacheck.merge_reports (mlacheck_report_merge): report.csv files of several processes joined into
one report folder, as `mlacheck merge` joins shards; errors name the file and the id at fault."""

from __future__ import annotations

import csv

import pytest

import mlacheck
import numpy_backend
from conftest import BF16_MTP, F32_OUT, FP8_CACHE


def write_report(folder, *repros):
    with mlacheck.Report(folder) as report:
        for repro in repros:
            report.append(mlacheck.check(mlacheck.plan(repro=repro)[0], numpy_backend.decode))
    return folder / "report.csv"


def ids(path):
    with open(path, newline="") as f:
        return [row["id"] for row in csv.DictReader(f)]


def test_reports_merge_in_order_into_a_finished_folder(tmp_path):
    first = write_report(tmp_path / "gw0", BF16_MTP, F32_OUT)
    second = write_report(tmp_path / "gw1", FP8_CACHE)
    out = tmp_path / "merged" / "run"  # created as needed
    assert mlacheck.merge_reports([first, second], out, title="merged run") == 3
    assert ids(out / "report.csv") == ["bf16-mtp", "f32-out", "fp8-cache"]
    # the rows are the workers' rows, cell for cell
    with open(first, newline="") as f:
        before = list(csv.DictReader(f))
    with open(out / "report.csv", newline="") as f:
        assert list(csv.DictReader(f))[:2] == before
    assert (out / "junit.xml").read_text().count("<testcase") == 3
    assert "merged run" in (out / "report.html").read_text()


def test_an_empty_worker_report_merges(tmp_path):
    empty = tmp_path / "gw1"
    mlacheck.Report(empty).finish()  # a worker that ran no case
    assert mlacheck.merge_reports([write_report(tmp_path / "gw0", BF16_MTP), empty / "report.csv"], tmp_path) == 1


def test_a_duplicate_id_is_refused_naming_it_and_both_files(tmp_path):
    first = write_report(tmp_path / "gw0", BF16_MTP, F32_OUT)
    second = write_report(tmp_path / "gw1", F32_OUT)
    with pytest.raises(mlacheck.MlacheckError) as raised:
        mlacheck.merge_reports([first, second], tmp_path / "out")
    message = str(raised.value)
    assert message.startswith("mlacheck_report_merge: duplicate id 'f32-out' in ")
    assert f"{first}:3" in message and f"{second}:2" in message
    assert not (tmp_path / "out").exists()  # nothing written


def test_a_missing_report_is_named_and_the_folder_keeps_what_it_held(tmp_path):
    out = tmp_path / "out"
    write_report(out, FP8_CACHE)  # an earlier merge
    present = write_report(tmp_path / "gw0", BF16_MTP)
    missing = tmp_path / "gw1" / "report.csv"
    with pytest.raises(mlacheck.MlacheckError, match=f"^mlacheck_report_merge: .*{missing}") as raised:
        mlacheck.merge_reports([present, missing], out)
    assert raised.value.status == 3  # MLACHECK_ERROR_IO
    assert ids(out / "report.csv") == ["fp8-cache"]


def test_the_merged_report_cannot_be_an_input(tmp_path):
    report = write_report(tmp_path, BF16_MTP)
    with pytest.raises(mlacheck.MlacheckError, match=r"inputs\[0\] .* is the merged report itself"):
        mlacheck.merge_reports([report], tmp_path)
    with pytest.raises(mlacheck.MlacheckError, match="count 0: nothing to merge"):
        mlacheck.merge_reports([], tmp_path / "out")
