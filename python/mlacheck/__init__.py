"""mlacheck for Python: mlacheck's cases, inputs, oracle, verdicts and reports for an MLA decode
backend written in Python (PyTorch, Triton, a kernel library's bindings), through the harness C
API (libmlacheck_capi.so, loaded with ctypes). docs/python.md describes the API.

    import mlacheck
    verdicts = mlacheck.run(mlacheck.plan("default"), my_decode, report_dir="out")
"""

try:
    from ._version import __version__  # written by the build (CMake, or the wheel's setup.py)
except ImportError:  # the bare source folder, which no build has written into
    __version__ = "0+unknown"

from ._backend import check
from ._capi import MlacheckError, library_path
from ._case import Case, CaseInputs
from ._outputs import StagedOutputs, guard_pattern
from ._plan import Plan, plan
from ._pool import NotEnoughMemory, PooledCache
from ._problem import Problem
from ._report import Report
from ._runner import run
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
    "StagedOutputs",
    "Tensor",
    "TensorErrors",
    "Verdict",
    "check",
    "decode",
    "encode",
    "guard_pattern",
    "library_path",
    "plan",
    "poison_code",
    "run",
]
