"""Stopping at once on Ctrl-C or SIGTERM: every process the harness started is killed, every
container and network of this process removed, and the command exits 130 (SIGINT) or 143
(SIGTERM) within seconds, whatever its threads were doing.

The run's threads (the two sides of a pair, fault steps, the LSO probe) are not asked to
finish: once the cluster and the apps are gone nothing they could still do is worth
waiting for, and waiting for them (the other side reading back, an app using up its
budget) is what made an interrupted pair take tens of seconds to exit. So the handler
cleans up itself and ends the process; the run folder keeps whatever was written, and
what was registered as ``last_words`` (a pair's report of what it left) runs before the
exit.

Every child process is started by ``start``, in a session of its own, so a terminal's Ctrl-C
reaches only the harness, and the handler kills each child's whole process group: a Spark
driver's JVM or a Java app's threads go with it. Starting and stopping exclude each other:
the handler waits for the starts under way (a fault step restarting an app in another
thread) so that it kills what they started, and once it began no start begins.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from harness import docker_engine

# Seconds from the signal to the exit, at most. The stop waits for two things, side by side:
# Docker removing the containers and networks, and the last words (a pair's report); each takes
# about 1.5 s on a quiet machine and two to three times that on one loaded by other work
# (`make bench-stop`). Past the limit the exit comes anyway, saying what may be left.
LIMIT_S = 8.0
_children: set[subprocess.Popen[bytes]] = set()
_last_words: list[Callable[[], None]] = []
# Reentrant: the handler runs in the main thread, which may hold the lock when it comes.
_lock = threading.RLock()
_changed = threading.Condition(_lock)
_starting: set[int] = set()  # threads in the middle of starting a child
_stopping = False
# Held by the thread that stops the harness; reentrant, as a second signal may come into the
# main thread's handler before it ignores further ones (that call then does it all again).
_stop_once = threading.RLock()


def start(cmd: list[str], **popen_args: Any) -> subprocess.Popen[bytes]:
    """Start ``cmd`` in a session of its own, its process group killed if the harness is
    interrupted. Once an interruption is being handled nothing starts: the calling thread
    waits for the process to exit."""
    me = threading.get_ident()
    with _changed:
        while _stopping:
            _changed.wait()
        _starting.add(me)
    try:
        proc: subprocess.Popen[bytes] = subprocess.Popen(cmd, start_new_session=True, **popen_args)
        with _lock:
            _children.add(proc)
        return proc
    finally:
        with _changed:
            _starting.discard(me)
            _changed.notify_all()


@contextmanager
def last_words(say: Callable[[], None]) -> Iterator[None]:
    """Within the block, an interruption calls ``say`` once the apps are killed, while the
    containers are removed (it must be quick and must not need the cluster)."""
    with _lock:
        _last_words.append(say)
    try:
        yield
    finally:
        with _lock:
            _last_words.remove(say)


def install() -> None:
    """Stop everything at once on SIGINT and SIGTERM (the command line's main thread only).

    Python runs a handler in the main thread once that thread runs Python code again; when
    the kernel hands the signal to another thread while the main one waits in a system call
    (a join, a socket read), the handler would wait with it. So the signal's number also goes
    to a pipe (``signal.set_wakeup_fd``), and a thread reading it stops the harness:
    whichever of the two comes first does it."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    threading.Thread(target=_stop_on_wakeup, args=(read_end,), name="signals", daemon=True).start()


def _stop_on_wakeup(read_end: int) -> None:
    while True:
        for signum in os.read(read_end, 64):
            if signum in (signal.SIGINT, signal.SIGTERM):
                _stop(signum, None)


def _remove_containers(removed: list[str], took: dict[str, float], started: float) -> None:
    try:
        removed += docker_engine.remove_leftovers(owner=os.getpid())
    except Exception as exc:  # whatever Docker says, the exit must come
        print(f"kafka-harness: cleanup: {str(exc).splitlines()[0][:200]}", file=sys.stderr)
    took["containers"] = time.monotonic() - started


def _say_all(words: list[Callable[[], None]], took: dict[str, float], started: float) -> None:
    for say in words:
        with contextlib.suppress(Exception):  # a failing last word must not keep the others from speaking
            say()
    took["last words"] = time.monotonic() - started


def hold_if_stopping() -> None:
    """In a thread about to mark its work done: if the harness is stopping, wait for the exit
    instead. What failed while the cluster was being removed failed because of the stop, and a
    run recorded as done with that error would not run again when its campaign is continued."""
    with _lock:
        stopping = _stopping
    if stopping and threading.current_thread() is not threading.main_thread():
        threading.Event().wait()


def _stop(signum: int, frame: FrameType | None) -> None:
    global _stopping
    started = time.monotonic()
    if not _stop_once.acquire(blocking=False):
        threading.Event().wait()  # another thread cleans up and exits; never cut it short
    if threading.current_thread() is threading.main_thread():  # only there can handlers change
        for s in (signal.SIGINT, signal.SIGTERM):  # a second Ctrl-C must not cut the cleanup short
            signal.signal(s, signal.SIG_IGN)
    took: dict[str, float] = {}
    with _changed:
        _stopping = True
        # Other threads' starts finish (a Popen takes milliseconds) and are killed below; a
        # start this very thread was in cannot finish before the handler returns.
        me = threading.get_ident()
        _changed.wait_for(lambda: not (_starting - {me}), timeout=1.0)
    kill_children()
    took["apps"] = time.monotonic() - started
    # The last words need neither the apps (killed: their files are final) nor the cluster,
    # so they speak while Docker removes the containers: both get the whole time allowed,
    # which a busy machine needs. Past it the exit comes anyway (each writes whole or not at all).
    with _lock:
        words = list(_last_words)
    speaking = threading.Thread(target=_say_all, args=(words, took, started), daemon=True)
    speaking.start()
    removed: list[str] = []
    removing = threading.Thread(target=_remove_containers, args=(removed, took, started), daemon=True)
    removing.start()
    for waited, unfinished in (
        (removing, "Docker is still removing this run's containers: a process of its own finishes it"),
        (speaking, "the last words (the pair's report) were cut short"),
    ):
        waited.join(max(0.0, LIMIT_S - (time.monotonic() - started)))
        if waited.is_alive():
            print(f"kafka-harness: after {LIMIT_S:g} s {unfinished}", file=sys.stderr)
    if removing.is_alive():
        _finish_removal_apart()
    name = signal.Signals(signum).name
    stages = ", ".join(f"{k} {v:.2f}" for k, v in took.items())  # seconds after the signal each was done
    print(
        f"kafka-harness: {name}: stopped in {time.monotonic() - started:.2f} s ({stages}); apps killed,"
        f" {len(removed)} containers/networks removed",
        file=sys.stderr,
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(128 + signum)


def _finish_removal_apart() -> None:
    """On a machine too busy for Docker to remove everything within the limit: a process of its
    own (in its own session, outliving this one) removes what this process still owns, so the
    exit comes on time and nothing is left."""
    remove = f"from harness import docker_engine; docker_engine.remove_leftovers(owner={os.getpid()})"
    with contextlib.suppress(OSError):
        subprocess.Popen(  # not start(): it must outlive this process and its children's kill
            [sys.executable, "-c", remove],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )


def kill_children() -> None:
    with _lock:
        children = list(_children)
    for proc in children:
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):  # gone meanwhile
                os.killpg(proc.pid, signal.SIGKILL)
