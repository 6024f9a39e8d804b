"""Properties of the checker over generated histories (``histories``: every workload kind, both
consumer views, every ledger outcome, restarts with resends, markers, unsorted read-backs, empty
partitions and views, garbage lines, ledgers in many load pieces), written as the documented files:

- a clean history reports nothing;
- every injected anomaly is reported under its name with its exact count, and nothing else is;
- every ignored ledger line is reported, and the checker never raises.

Deterministic and bounded by default; ``make test-properties`` searches deeper (the ``deep``
Hypothesis profile, tests/conftest.py). Every counterexample ever found stays here as an ``@example``.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import example, given

from harness.checker.catalogue import ANOMALIES
from harness.checker.check import check
from harness.checker.result import CheckOptions, CheckResult
from harness.history import ledger, loading
from tests.harness.checker.histories import INJECTIONS, Case, Spec, build, specs

# pyarrow's CSV reader cannot hand a cut-short line with invalid UTF-8 to the checker's handler: it
# says so on stderr and fails the piece, which the checker then reads line by line (as it must).
pytestmark = pytest.mark.filterwarnings(
    r"ignore:Exception ignored in. <function read_piece.<locals>.skip:pytest.PytestUnraisableExceptionWarning"
)


def _check(case: Case) -> CheckResult:
    with tempfile.TemporaryDirectory(prefix="history-") as tmp:
        paths, reads = case.write(Path(tmp))
        with mock.patch.object(ledger, "PIECE_BYTES", case.piece_bytes or ledger.PIECE_BYTES):
            history = loading.load(paths, reads)
    return check(history, CheckOptions(view=case.view, eos_pairs=case.eos_pairs))


def _judged_right(spec: Spec) -> None:
    case = build(spec)
    result = _check(case)
    counts = {name: result.count(name) for name in ANOMALIES}
    assert counts == case.expect, {"found": counts, "injected": case.expect, "result": result.to_json()}
    assert sum(result.ledger_problems.values()) == case.problems, result.notes


def test_every_history_anomaly_can_be_injected() -> None:
    assert set(INJECTIONS) == set(ANOMALIES)


@given(spec=specs(injected=0))
# Found against the checker before its fixes: a consumer of only empty partitions crashed it
# (IndexError in inconsistent_offset); a record timed out but written, then resent and surely
# failed, was an aborted_read.
@example(spec=Spec(kinds=("plain",), reading="empty"))
@example(spec=Spec(kinds=("plain",)))
@example(spec=Spec(kinds=()))  # no ledger at all
# Found against the generator: a garbage line put after a last line cut short (no newline) joined it,
# and the checker rightly reported one line where two were expected.
@example(spec=Spec(kinds=("pipeline",), garbage=2))
def test_a_clean_history_reports_nothing(spec: Spec) -> None:
    _judged_right(spec)


@given(spec=specs())
@example(spec=Spec(kinds=("plain",), inject=(("partly_read", 1),), reading="empty"))  # the same two, found again
@example(spec=Spec(kinds=("plain",), inject=(("partly_read", 1),)))
# Found against the generator: order swapped two records that were neighbours only once it left
# out one an earlier injection had touched, so the checker rightly saw two late records.
@example(spec=Spec(kinds=("plain", "plain"), inject=(("aborted_read", 2), ("order", 1))))
@example(spec=Spec(kinds=("transactional", "transactional", "zombie"), inject=(("phantom", 3),), seed=426, garbage=2))
# Found against the checker: a zombie's send in flight (no ack, so no known partition), written to
# the one partition left unread, was counted missing from a torn transaction; its topic was read,
# though not all of it.
@example(spec=Spec(kinds=("zombie",), view="read_uncommitted", inject=(("partly_read", 1),), seed=197))
def test_each_injected_anomaly_is_reported_with_its_count_and_nothing_else(spec: Spec) -> None:
    _judged_right(spec)
