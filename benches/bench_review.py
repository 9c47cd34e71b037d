"""Code review of a 500-line diff (docs/review.md): wall time and tokens per reviewer.

A repository whose uncommitted change is DIFF_LINES added and changed lines over ten
files; the fake model answers each reviewer (told apart by its system prompt) with a
read of one file, then three findings (one of them off the change), then its summary,
each reply after LATENCY seconds (a model's latency) and with the input tokens the
request really carries (about four characters a token). Baseline: the correctness
reviewer alone. Figure: the three reviewers in parallel against it (near 1x when the
passes overlap their waits for the model; a warm-up review runs first, not counted);
the collection of the change from git is timed on its own.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karyi.agent.code_review.changes import collect
from karyi.agent.code_review.reviewers import REVIEWERS
from karyi.agent.code_review.runner import Review, run_review
from karyi.agent.runtime import Runtime
from karyi.settings import Settings
from tests.support.fake_model_server import FakeModelServer, Received
from tests.support.replies import Reply
from tests.support.review_model import calls, finding, git, reviewer_of

DIFF_LINES = 500
FILES = 10
LATENCY = 0.3
SMOKE: dict[str, object] = {"DIFF_LINES": 40, "LATENCY": 0.01}


def make_repo(root: Path) -> Path:
    """Ten files committed, then each grown by DIFF_LINES / FILES lines (uncommitted)."""
    per = DIFF_LINES // FILES
    (root / "src").mkdir(parents=True)
    for n in range(FILES):
        (root / "src" / f"mod{n}.py").write_text(f'"""Module {n}."""\n')
    (root / "src" / "stable.py").write_text("".join(f"X{i} = {i}\n" for i in range(20)))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    for n in range(FILES):
        body = "".join(f"def f{i}(x):\n    return x / {i}\n\n" for i in range(per // 3 + 1))
        text = f'"""Module {n}."""\n' + "".join(body.splitlines(keepends=True)[:per])
        (root / "src" / f"mod{n}.py").write_text(text)
    return root


def responder(latency: float) -> Callable[[Received], Reply]:
    lock = threading.Lock()
    seen: dict[str, int] = {}

    def reply(received: Received) -> Reply:
        time.sleep(latency)
        name = reviewer_of(received)
        with lock:
            step = seen[name] = seen.get(name, 0) + 1
        tokens = len(json.dumps(received.body["messages"])) // 4
        if step == 1:
            text = 'Reading.\n<tools><read><file src="src/mod0.py"/></read></tools>'
        elif step == 2:
            text = calls(
                finding("src/mod0.py", 3, "error", f"{name}: division by zero in f0"),
                finding("src/mod1.py", 6, "warning", f"{name}: x is unchecked"),
                finding("src/stable.py", 12, "info", f"{name}: X11 is unused"),  # off the change
            )
        else:
            text = "Three findings."
        return Reply(text=text, input_tokens=tokens, output_tokens=len(text) // 4)

    return reply


async def review(
    root: Path, server: FakeModelServer, names: tuple[str, ...]
) -> tuple[Review, float]:
    server.responder = responder(LATENCY)
    settings = Settings().with_values(model="openai:fake-model", baseUrl=server.openai_url)
    runtime = Runtime.open(root, settings)
    try:
        change = collect(root)
        started = time.perf_counter()
        done = await run_review(
            runtime, change, reviewers=[r for r in REVIEWERS if r.name in names]
        )
        return done, time.perf_counter() - started
    finally:
        await runtime.aclose()
        runtime.close()


def main() -> None:
    server = FakeModelServer().start()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            root = make_repo(Path(tmp) / "repo")
            started = time.perf_counter()
            change = collect(root)
            collecting = time.perf_counter() - started
            added = sum(
                last - first + 1 for ranges in change.lines.values() for first, last in ranges
            )
            files = len(change.lines)
            print(
                f"change: {added} changed lines in {files} files, read in {collecting * 1e3:.0f} ms"
            )
            asyncio.run(review(root, server, ("correctness",)))  # warm-up: imports, caches
            alone, alone_s = asyncio.run(review(root, server, ("correctness",)))
            names = tuple(r.name for r in REVIEWERS)
            three, three_s = asyncio.run(review(root, server, names))
    finally:
        server.stop()
    print(f"baseline: correctness alone {alone_s:.2f} s, {alone.tokens:,} tokens")
    for p in three.passes:
        print(
            f"  {p.name:12} {p.seconds:5.2f} s  {p.steps} steps  {p.input_tokens:,} in  "
            f"{p.output_tokens:,} out  {p.reports} reports ({p.stop_reason})"
        )
    print(
        f"three reviewers in parallel: {three_s:.2f} s ({three_s / alone_s:.2f}x the one), "
        f"{three.tokens:,} tokens; {len(three.findings)} findings kept, "
        f"{three.sorted.dropped} dropped, {three.sorted.merged} merged"
    )


if __name__ == "__main__":
    main()
