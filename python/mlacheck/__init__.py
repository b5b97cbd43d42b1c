"""mlacheck for Python: mlacheck's cases, inputs, oracle, verdicts and reports for an MLA decode
backend written in Python (PyTorch, Triton, a kernel library's bindings), through the harness C
API (libmlacheck_capi.so, loaded with ctypes). docs/python.md describes the API.

    import mlacheck
    verdicts = mlacheck.run(mlacheck.plan("default"), my_decode, report_dir="out")

    @mlacheck.parametrize(mlacheck.plan("scenarios"))      # in a test suite
    def test_my_decode(case):
        mlacheck.assert_passes(case, my_decode)
"""

try:
    from ._version import __version__  # written by the build (CMake, or the wheel's setup.py)
except ImportError:  # the bare source folder, which no build has written into
    __version__ = "0+unknown"

from ._assertions import VerdictFailure, assert_passes
from ._backend import check
from ._capi import MlacheckError, library_path
from ._case import Case, CaseInputs
from ._outputs import StagedOutputs, guard_pattern
from ._parametrize import cases, parametrize
from ._plan import Plan, plan
from ._pool import NotEnoughMemory, PooledCache
from ._problem import Problem
from ._report import Report, merge_reports
from ._runner import run
from ._shrink import ShrinkResult, ShrinkStep, shrink
from ._sequence import Sequence, SequenceInputs
from ._tensor import Tensor, decode, encode, poison_code
from ._verdict import TensorErrors, Verdict

__all__ = [
    "__version__",
    "Case",
    "CaseInputs",
    "MlacheckError",
    "NotEnoughMemory",
    "Plan",
    "PooledCache",
    "Problem",
    "Report",
    "ShrinkResult",
    "ShrinkStep",
    "Sequence",
    "SequenceInputs",
    "StagedOutputs",
    "Tensor",
    "TensorErrors",
    "Verdict",
    "VerdictFailure",
    "assert_passes",
    "cases",
    "check",
    "decode",
    "encode",
    "guard_pattern",
    "library_path",
    "merge_reports",
    "parametrize",
    "plan",
    "poison_code",
    "run",
    "shrink",
]
