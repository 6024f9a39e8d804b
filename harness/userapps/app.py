"""A user's app as the harness runs it: each instance an ``AppProcess`` (incarnations that
faults kill, pause and restart) started with the user's command and the contract's environment,
writing no ledger; and how the harness knows the app is done, since a user's app runs until it
is stopped.

``GroupProgress`` watches the app's consumer group and output topic: the app has **caught up**
once the group's committed offsets are past the last committed input record of every
partition (a reader may or may not move past the markers and aborted records after it), and it
is **idle** while neither those offsets nor the output's high watermarks move. ``UserApp.wait``
stops an instance (SIGTERM, then SIGKILL after ``STOP_GRACE_S``) once the group has caught up,
or once it has been idle for its ``idle_timeout_s``.

An incarnation that exits with a failure status without having been signalled by the harness
or a fault has **crashed**; ``reports`` say so, with the last line it printed.
"""

from __future__ import annotations

import signal
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, KafkaException, TopicPartition

from harness.settings import HARNESS_CLIENT_LOG_LEVEL
from harness.waits import Deadline
from harness.workloads.process import AppProcess, Command, SpecFor

# How long an instance asked to stop (SIGTERM) may take before it is killed: a clean
# shutdown closes its clients, which may wait for a transaction to end.
STOP_GRACE_S = 10.0
# How often the group and the output are looked at while waiting.
_POLL_S = 0.5
_CALL_TIMEOUT_S = 5.0


def instance_name(i: int) -> str:
    """Name of a user app's i-th instance (from 1): fault target ``App(instance_name(i))``, file stem."""
    return f"app-{i}"


@dataclass(frozen=True)
class Progress:
    committed: int  # input offsets the group has committed, summed over the partitions
    caught_up: bool
    outputs: int  # the output topic's high watermarks, summed (markers included)


class GroupProgress:
    """The group's committed offsets against the input's end, and the output's high watermarks."""

    def __init__(
        self,
        bootstrap: str,
        login: dict[str, str],
        group: str,
        input_topic: str,
        targets: dict[int, int] | None,
        output_topic: str,
        targets_later: Callable[[], dict[int, int] | None] | None = None,
    ) -> None:
        """``targets``: per input partition, the offset after its last committed record; None
        while a live input is being written: ``targets_later`` gives them once it is (until
        then the group is never caught up)."""
        self.group, self.input_topic, self.output_topic, self.targets = group, input_topic, output_topic, targets
        self._targets_later = targets_later
        self._config = {
            "bootstrap.servers": bootstrap,
            "group.id": group,  # asks for the group's offsets; never subscribes, so never joins it
            "enable.auto.commit": False,
            "log_level": HARNESS_CLIENT_LOG_LEVEL,
            **login,
        }
        self._consumer: Consumer | None = None
        self._lock = threading.Lock()
        self._last: tuple[int, int] | None = None
        self.last_change = time.monotonic()
        # Every answer, with its wall-clock time: what a fault's moment is judged by
        # (harness.userapps.moments). Looked at every _POLL_S from the app's start (``watch``).
        self.samples: list[dict[str, Any]] = []
        self._watching: threading.Thread | None = None
        self._closed = threading.Event()

    def watch(self) -> None:
        """Look every half second from now until ``close``, on a thread of its own (once)."""
        with self._lock:
            if self._watching is not None or self._closed.is_set():
                return
            self._watching = threading.Thread(target=self._watch, name=f"progress-{self.group}", daemon=True)
            self._watching.start()

    def _watch(self) -> None:
        while not self._closed.wait(_POLL_S):
            self.look()

    def look(self) -> Progress:
        """Ask the cluster now; notes when anything last moved. A question that fails (a broker
        down, a slow machine) is no news: the last answer stands, not caught up."""
        with self._lock:
            if self._consumer is None:
                self._consumer = Consumer(self._config)
            try:
                committed, outputs = self._ask(self._consumer)
            except KafkaException:
                total, outputs = self._last or (0, 0)
                return Progress(total, False, outputs)
            total = sum(max(0, offset) for offset in committed.values())
            if (total, outputs) != self._last:
                self._last, self.last_change = (total, outputs), time.monotonic()
            targets = self.targets
            caught_up = targets is not None and all(committed.get(p, -1) >= t for p, t in targets.items())
            self.samples.append({"at": time.time(), "committed": total, "caught_up": caught_up, "outputs": outputs})
            return Progress(total, caught_up, outputs)

    def _ask(self, consumer: Consumer) -> tuple[dict[int, int], int]:
        if self.targets is None and self._targets_later is not None:
            self.targets = self._targets_later()
        partitions = consumer.list_topics(self.input_topic, timeout=_CALL_TIMEOUT_S).topics[self.input_topic].partitions
        asked = [TopicPartition(self.input_topic, p) for p in sorted(self.targets or partitions)]
        committed = {tp.partition: tp.offset for tp in consumer.committed(asked, timeout=_CALL_TIMEOUT_S)}
        meta = consumer.list_topics(self.output_topic, timeout=_CALL_TIMEOUT_S).topics[self.output_topic]
        outputs = sum(
            consumer.get_watermark_offsets(TopicPartition(self.output_topic, p), timeout=_CALL_TIMEOUT_S)[1]
            for p in meta.partitions
        )
        return committed, outputs

    def idle_s(self) -> float:
        return time.monotonic() - self.last_change

    def close(self) -> None:
        self._closed.set()
        if self._watching is not None and self._watching is not threading.current_thread():
            self._watching.join()
        with self._lock:
            if self._consumer is not None:
                self._consumer.close()
                self._consumer = None


class UserApp(AppProcess):
    """One instance of a user's app. Unlike the harness's apps it does not stop by itself:
    ``wait`` stops it once its group has caught up or has been idle for ``idle_timeout_s``."""

    def __init__(
        self,
        name: str,
        run_dir: Path,
        spec_for: SpecFor,
        command: Command,
        env: dict[str, str],
        progress: GroupProgress,
        idle_timeout_s: float,
    ) -> None:
        super().__init__(name, run_dir, spec_for, command, env, group=progress.group)
        self.progress, self.idle_timeout_s = progress, idle_timeout_s
        self.signalled: set[int] = set()  # incarnations the harness or a fault sent a signal to
        self.stopped = ""  # why the harness stopped it: "caught up" or "idle for ...s"

    def start(self) -> None:
        super().start()
        self.progress.watch()

    def signal(self, signum: int) -> None:
        if signum != signal.SIGCONT:
            self.signalled.add(self.current.number)
            if not self.stopped:
                # A fault's signal: the group's progress looked at now, so the fault's moment is
                # judged by what the app had in hand when it hit, not by a look the sampler made
                # seconds earlier on a busy machine (harness.userapps.moments).
                self.progress.look()
        super().signal(signum)

    def wait(self, timeout_s: float) -> bool:
        """Until the current incarnation exits, or the group has caught up or been idle too
        long (the instance is then stopped); False on timeout (the caller says what it does about it)."""
        # A Deadline, not poll_until: each look may stop the instance, and the wait is for its exit.
        deadline = Deadline(timeout_s)
        while self.incarnations and self.current.proc.poll() is None:
            looked = self.progress.look()
            if looked.caught_up:
                self.stop("caught up")
            elif self.progress.idle_s() > self.idle_timeout_s:
                self.stop(f"no progress for {self.idle_timeout_s:.0f}s")
            elif deadline.expired():
                return False
            else:
                time.sleep(_POLL_S)
        return True

    def kill(self) -> None:
        for incarnation in self.incarnations:
            if incarnation.proc.poll() is None:
                self.signalled.add(incarnation.number)
        super().kill()

    def stop(self, why: str) -> None:
        """SIGTERM, and SIGKILL if it has not exited after ``STOP_GRACE_S``."""
        proc = self.current.proc
        if proc.poll() is not None:
            return
        self.stopped = why
        self.signal(signal.SIGTERM)
        try:
            proc.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            self.signal(signal.SIGKILL)
            proc.wait()

    def crashes(self) -> list[dict[str, Any]]:
        """Incarnations that exited with a failure status nobody asked for."""
        return [r for r in self.reports() if r.get("crashed")]

    def reports(self) -> list[dict[str, Any]]:
        found = super().reports()
        for report, incarnation in zip(found, self.incarnations, strict=True):
            code = report["exit"]
            signalled = incarnation.number in self.signalled
            report["signalled"] = signalled
            report["crashed"] = code not in (None, 0) and not signalled
            if report["crashed"]:
                report["last_line"] = _last_line(incarnation.out)
        if found and self.stopped:
            found[-1]["stopped"] = self.stopped
        return found


def _last_line(out: Path) -> str:
    lines = out.read_text(errors="replace").strip().splitlines() if out.exists() else []
    return lines[-1] if lines else ""


def new_group(prefix: str) -> str:
    """A consumer group nobody has used, for a run of a user's app."""
    return f"{prefix}-{uuid.uuid4().hex[:6]}"
