"""The running room: running a backend on cases (the adapter, one-step cases, sequences and graph
replay, prefetching, the runner, shrinking). It builds on api/ and never on pytest_plugin/."""
