"""Ending a transaction the same way in every app: commit, or abort on purpose, recording each step;
and the report every app prints as its last line, naming the client release it ran on.

The ledger gets ``txn-commit`` before the commit is asked for and ``txn-committed`` after
it returns, so a crash in between leaves the outcome visibly unknown. An abortable error
aborts (and says so); any other error is recorded as ``txn-unknown`` and raised, and the
app decides whether it was fenced.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

import confluent_kafka
from confluent_kafka import KafkaError, KafkaException, Producer

from harness.history.ledger import LedgerWriter

COMMITTED, ABORTED = "committed", "aborted"
FENCED_EXIT = 3  # the app stopped because it was fenced (or hit another fatal error)
STUCK_EXIT = 4  # the app gave up on a client call that outlived its own timeout
STUCK_GRACE_S = 15.0
# How often the watchdog looks, and a gap between two looks that means the process was stopped.
_WATCH_TICK_S = 0.5
_FROZEN_GAP_S = 3.0
_progress: Callable[[], dict[str, Any]] = dict  # the app's report so far, for a report written in haste
_FENCING = (KafkaError._FENCED, KafkaError.PRODUCER_FENCED, KafkaError.INVALID_PRODUCER_EPOCH)


def client_releases(client: ModuleType) -> tuple[str, str]:
    """The release of the confluent_kafka module ``client`` and of the librdkafka it bundles, which
    may be older (confluent-kafka 2.16.1 bundles librdkafka 2.16.0). Shared with the check of an
    install (harness.workloads.librdkafka_versions), which runs it on the installed release."""

    # Each call gives a (text, number) pair, but version() gives the text alone from 2.12.0 on,
    # and libversion() too in 2.12.0 (only: 2.12.1 went back to the pair).
    def text(given: str | tuple[str, int]) -> str:
        return given if isinstance(given, str) else given[0]

    return text(client.version()), text(client.libversion())


# What the app ran on: librdkafka's own release and confluent-kafka's; an app may run on another
# release than the harness's own.
_CONFLUENT_KAFKA, _LIBRDKAFKA = client_releases(confluent_kafka)
CLIENT_RELEASE = {"client_version": _LIBRDKAFKA, "confluent_kafka": _CONFLUENT_KAFKA}


def print_report(report: dict[str, Any]) -> None:
    """The app's last line of output (harness.workloads.process reads it), with ``CLIENT_RELEASE``."""
    print(json.dumps({**report, **CLIENT_RELEASE}), flush=True)


def every_nth(n: int, i: int) -> bool:
    """Whether the ``i``-th (from 0) is an ``n``-th one: ``n-1``, ``2n-1``, ...; never for n = 0."""
    return bool(n) and i % n == n - 1


def aborts_on_purpose(abort_every: int, txn: int) -> bool:
    return every_nth(abort_every, txn)


def end_transaction(
    producer: Producer,
    ledger: LedgerWriter,
    session: int,
    txn: int,
    abort: bool,
    before_end: Callable[[], None] = lambda: None,
    timeout_s: float = 60,
    attempts: int = 5,
) -> str:
    """Run ``before_end`` (e.g. adding consumer offsets), then commit or abort ``txn``: each call
    given ``timeout_s``, and asked ``attempts`` times while the error is retriable."""
    try:
        before_end()
        if abort:
            # Written first, then aborted: an abort with records still queued would purge
            # them locally and the log would never hold anything to hide.
            producer.flush(60)
            until_answered(producer.abort_transaction, timeout_s, attempts)
            ledger.txn("aborted", session, txn, "on purpose")
            return ABORTED
        ledger.txn("commit", session, txn)
        until_answered(producer.commit_transaction, timeout_s, attempts)
        ledger.txn("committed", session, txn)
        return COMMITTED
    except KafkaException as exc:
        err = exc.args[0]
        if err.txn_requires_abort():
            until_answered(producer.abort_transaction, timeout_s, attempts)
            ledger.txn("aborted", session, txn, err.name())
            return ABORTED
        ledger.txn("unknown", session, txn, err.name())
        raise


def until_answered(end: Callable[[float], None], timeout_s: float, attempts: int) -> None:
    """A transactional call given ``timeout_s`` (commit, abort, adding offsets), asked again
    while librdkafka says the error is retriable (a timeout while the coordinator is
    unreachable; CONCURRENT_TRANSACTIONS while it still completes the previous transaction),
    as its documentation asks: the outcome is still open, and giving up would leave the
    transaction hanging until its timeout."""
    for attempt in range(attempts):
        try:
            with bounded(end.__name__, timeout_s):
                end(timeout_s)
            return
        except KafkaException as exc:
            if not exc.args[0].retriable() or attempt == attempts - 1:
                raise


def fenced(err: KafkaError) -> bool:
    """The producer was fenced (a newer one took its transactional.id or its group's place),
    or hit another fatal error: it must stop, as a zombie must."""
    return err.code() in _FENCING or err.fatal()


def report_progress_with(progress: Callable[[], dict[str, Any]]) -> None:
    """What the app has done so far: the report ``bounded`` prints if it has to give up."""
    global _progress
    _progress = progress


@contextmanager
def bounded(call: str, timeout_s: float) -> Iterator[None]:
    """Around a librdkafka call given ``timeout_s``: give up on the whole app if the call
    outlives it by ``STUCK_GRACE_S``.

    librdkafka does not always keep to the timeout: ``send_offsets_to_transaction`` can
    block for good once its group coordinator was unreachable (librdkafka issue 5456; seen
    here in B2c after a healed blackhole). The app then prints its report with ``stuck``
    and exits ``STUCK_EXIT`` at once (the blocked thread cannot be interrupted); its open
    transaction is left to the coordinator's timeout, as after a crash. Time the process spent
    stopped does not count: a paused app is not a stuck client.
    """
    started = time.monotonic()
    answered = threading.Event()

    def watch() -> None:
        allowed, last = timeout_s + STUCK_GRACE_S, started
        while not answered.wait(_WATCH_TICK_S):
            now = time.monotonic()
            if now - last > _FROZEN_GAP_S:
                # The whole process was stopped (SIGSTOP) meanwhile: that time was not the call's.
                # Without this a pause longer than the allowance ended the app on its resumption,
                # before the call had run at all (explore, B1 seed 3 run 6: a 48 s pause).
                allowed += now - last
            last = now
            if now - started > allowed:
                waited = round(now - started, 1)
                print_report({**_progress(), "stuck": {"call": call, "timeout_s": timeout_s, "waited_s": waited}})
                os._exit(STUCK_EXIT)

    threading.Thread(target=watch, name=f"{call}-watchdog", daemon=True).start()
    try:
        yield
    finally:
        answered.set()
