"""Commands start with default signal dispositions and an empty signal mask.

A signal ignored by a process stays ignored across exec, and so does a blocked one:
when Karyi is started with SIGINT ignored (`make test &` in a non-interactive shell
does that), every command it runs would ignore Ctrl-C too, and bash cannot undo it
("signals ignored upon entry to the shell cannot be trapped or reset"). So the child
resets both between fork and exec, before bwrap or the shell runs; bwrap passes them
on to the sandboxed command (docs/security.md, "Commands"). Signals 32 and 33 are the
C library's own (thread cancellation, set*id): no program can set them, and glibc gives
every program its own handlers for them at start.
"""

from __future__ import annotations

import contextlib
import signal

_KEEP = {signal.SIGKILL, signal.SIGSTOP}


def default_signals() -> None:
    """Every catchable signal to SIG_DFL, none blocked. Runs in the child after fork."""
    for sig in signal.valid_signals():
        if sig in _KEEP:
            continue
        with contextlib.suppress(OSError, ValueError):  # ones the C library reserves
            signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, set())
