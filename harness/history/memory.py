"""Memory for loading and checking big histories: glibc's allocator tuned so arrays of a few
MB are reused within a stage instead of being handed back and faulted in again, and
trimmed between stages."""

from __future__ import annotations

import contextlib
import ctypes

import numpy as np
import pyarrow as pa


def _glibc() -> ctypes.CDLL | None:
    """glibc, to tune its allocator; None elsewhere (musl, macOS), where it is left as it is."""
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6")
        if libc.mallopt and libc.malloc_trim:
            return libc
    return None


_LIBC = _glibc()
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def keep_freed_memory_for_reuse() -> None:
    """Let freed memory be reused within a stage of loading or checking, not handed back and faulted in again.

    Both stages churn through arrays of a few MB (a piece of a ledger, a chunk of slots).
    By default glibc returns such memory to the OS as soon as the top of its heap is free,
    and numpy asks for transparent huge pages for every array of 4 MB or more; each reuse
    then faults in fresh pages that the kernel zeroes, 2 MB at a time. At ten million
    records that was seconds of system time (zeroing is slow on the VMs this runs on). The
    highest mmap threshold glibc allows (32 MiB) keeps those arrays on its heaps, no
    automatic trimming keeps the heaps, and ordinary pages are zeroed only where touched.
    ``release_free_memory`` trims between stages, so what is kept does not add up.
    """
    if _LIBC is not None:
        _LIBC.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
    with contextlib.suppress(AttributeError):  # a private switch (NUMPY_MADVISE_HUGEPAGE at import)
        np._core.multiarray._set_madvise_hugepage(False)


def release_free_memory() -> None:
    """Hand what Arrow's pool and glibc's heaps keep back to the OS: each stage's peak starts from what is live."""
    pa.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
