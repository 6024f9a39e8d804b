"""Several workers side by side, each taking runs until none is left: one in the main thread (so
Ctrl-C and SIGTERM reach it as they reach ``run``), more in threads of their own."""

from __future__ import annotations

import threading
from collections.abc import Callable


def side_by_side(count: int, work: Callable[[], None], stop: Callable[[], None]) -> None:
    """``work`` in ``count`` workers; the first error any of them raised is raised once all are
    done, the others told to ``stop`` taking runs as soon as it happens."""
    if count == 1:
        work()
        return
    failures: list[BaseException] = []

    def guarded() -> None:
        try:
            work()
        except BaseException as exc:  # raised in the main thread, once every worker is done
            failures.append(exc)
            stop()

    threads = [threading.Thread(target=guarded, name=f"worker-{i}") for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
