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

from .api._verdict_failure import VerdictFailure
from .running._assertions import assert_passes
from .running._backend import check
from .api._capi import MlacheckError, library_path
from .api._case import Case, CaseInputs
from .api._outputs import StagedOutputs, guard_pattern
from .api._parametrize import cases, parametrize
from .api._plan import Plan, plan
from .api._space import Space
from .api._pool import NotEnoughMemory, PooledCache
from .api._problem import Problem
from .api._report import Report, merge_reports
from .running._runner import run
from .running._shrink import ShrinkResult, ShrinkStep, shrink
from .api._sequence import Sequence, SequenceInputs
from .api._tensor import Tensor, decode, encode, poison_code
from .api._verdict import TensorErrors, Verdict

__all__ = [
    "__version__",
    "Case",
    "CaseInputs",
    "MlacheckError",
    "NotEnoughMemory",
    "Plan",
    "Space",
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
