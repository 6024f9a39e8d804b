"""``python -m harness.cli``: the ``kafka-harness`` command, for tests and benchmarks that run
it with a given interpreter."""

from harness.cli import main

main()
