"""How long ``read_committed`` readers were held back: the last stable offset (LSO) watched live.

A ``read_committed`` consumer reads no further than the LSO, the first offset of the
oldest transaction still open. While a transaction stays open (its producer hung or
died) the LSO stands still although the log grows behind it, and every such reader
stalls, until the transaction commits, or the coordinator aborts it after
``transaction.timeout.ms`` (its abort scan runs every 10 s by default).

``LsoProbe`` polls each partition's high watermark and LSO twice a second during a run
and reports every *stall*: a stretch during which the LSO stayed below the high watermark
without moving, from the first sample that showed it to the last sample that still did.
A stretch without samples (a fault on the client links stops the probe's requests as
well as the apps') is not evidence of a stall and does not lengthen one; nor does a
single sample whose high watermark, read just after the LSO, had grown meanwhile. Stalls
of ``REPORTED_STALL_S`` or longer are a client finding (``read_committed_stall``,
harness.checker.client).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec

POLL_S = 0.5
REPORTED_STALL_S = 5.0  # shorter lags are ordinary commit latency


@dataclass
class Stall:
    partition: str
    started_at: float  # wall clock
    seconds: float
    lso: int

    def to_json(self) -> dict[str, object]:
        seconds = round(self.seconds, 1)
        return {"partition": self.partition, "started_at": self.started_at, "seconds": seconds, "lso": self.lso}


class LsoProbe:
    def __init__(self, admin: AdminClient, topic: str, partitions: int) -> None:
        self.admin = admin
        self.partitions = [TopicPartition(topic, p) for p in range(partitions)]
        self.stalls: list[Stall] = []
        # partition -> (wall and monotonic time first seen, lso, monotonic time last seen)
        self._open: dict[str, tuple[float, float, int, float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="lso-probe", daemon=True)

    def start(self) -> LsoProbe:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
        for name in list(self._open):
            self._close(name)

    def _offsets(self, isolation: IsolationLevel) -> dict[str, int]:
        futures = self.admin.list_offsets(
            {tp: OffsetSpec.latest() for tp in self.partitions}, isolation_level=isolation, request_timeout=5
        )
        return {f"{tp.topic}-{tp.partition}": f.result().offset for tp, f in futures.items()}

    def _run(self) -> None:
        while not self._stop.wait(POLL_S):
            try:
                # LSO first: a high watermark read after it is never below it.
                lso = self._offsets(IsolationLevel.READ_COMMITTED)
                hwm = self._offsets(IsolationLevel.READ_UNCOMMITTED)
            except KafkaException:
                continue  # a broker is down or unreachable (a fault): no sample, no evidence either way
            now = time.monotonic()
            for name, stable in lso.items():
                opened = self._open.get(name)
                if stable < hwm[name] and (opened is None or opened[2] == stable):
                    wall, first = (time.time(), now) if opened is None else (opened[0], opened[1])
                    self._open[name] = (wall, first, stable, now)
                elif opened is not None:
                    self._close(name)

    def _close(self, name: str) -> None:
        wall, first, lso, last = self._open.pop(name)
        seconds = last - first
        if seconds >= REPORTED_STALL_S:
            self.stalls.append(Stall(name, wall, seconds, lso))
