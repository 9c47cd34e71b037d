"""`python -m karyi.acp.follow FILE`: what an ACP client's terminal runs to show a
command Karyi runs on its own pty (docs/acp.md, "Terminals").

It prints FILE as it grows (the call's redacted output) and exits once `FILE.done`
exists and everything before it was printed. The client's terminal has no stdin to
offer the command; `<input>` and `<ctrl>` reach the command through Karyi's pty.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

POLL = 0.05
"""How often the file is looked at; this runs in the editor's terminal, not in Karyi."""


def follow(path: Path) -> None:
    """Copy `path` to stdout as it grows, until its `.done` marker appears."""
    stream = sys.stdout.buffer
    done = path.with_name(path.name + ".done")
    while not path.exists() and not done.exists():
        time.sleep(POLL)
    if not path.exists():
        return
    with path.open("rb") as source:
        while True:
            finished = done.exists()
            chunk = source.read(65536)
            if chunk:
                stream.write(chunk)
                stream.flush()
                continue
            if finished:
                return
            time.sleep(POLL)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: one argument, the output file."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m karyi.acp.follow FILE", file=sys.stderr)
        return 2
    follow(Path(args[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
