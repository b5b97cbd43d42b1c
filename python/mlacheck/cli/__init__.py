"""`python -m mlacheck` and the wheel's `mlacheck` console script: the Python route's command
line (_main.py), over mlacheck.plan and mlacheck.run. `run` checks a Python backend named
module:attribute; `plan` lists the cases a plan holds."""
