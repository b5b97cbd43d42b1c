"""`python -m mlacheck`: the Python route's command line (mlacheck/cli/_main.py)."""

import sys

from .cli._main import main

if __name__ == "__main__":
    sys.exit(main())
