"""``check``: a history in, the catalogue's history anomalies and the history's stats out (the
numpy engine, on one machine)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from harness.checker import anomalies
from harness.checker.catalogue import CATALOGUE, HISTORY
from harness.checker.result import CheckOptions, CheckResult
from harness.history.columns import History

# One finder may find two anomalies; each runs once, the longest first.
_FINDERS = list(dict.fromkeys(d.finds for d in sorted(CATALOGUE, key=lambda d: -d.cost) if d.source == HISTORY))


def check(history: History, options: CheckOptions | None = None) -> CheckResult:
    c = anomalies.Context(history, options or CheckOptions())
    # The finders only read the context, and numpy lets go of the GIL in its loops: they run
    # on two threads, the longest first, so both cores stay busy until the end (the four big
    # ones pair up; more threads would only add temporaries).
    with ThreadPoolExecutor(2) as pool:
        running = [pool.submit(finder, c) for finder in _FINDERS]
        found = {name: finding for future in running for name, finding in future.result().items()}
    ordered = {d.name: found[d.name] for d in CATALOGUE if d.source == HISTORY}
    problems = {p.file: p.ignored_lines for p in history.problems}
    notes = [reason for p in history.problems for reason in p.reasons]
    return CheckResult(ordered, anomalies.stats(c), problems, notes)
