"""The streaming half of bench_chat.py, run in its own pty: the chat opened on a stored
session, then an answer streamed into it at a steady rate through the chat's feed (the
listener the agent's events reach), each screen update timed."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import statistics
import time
from pathlib import Path

from textual.screen import Screen

FRAMES: list[float] = []
CPU: list[float] = []
RATE = 200
WORDS = ["the", "module", "reads", "each", "line,", "then", "`parse()`", "returns", "a", "tree."]


def _timed_frames() -> None:
    """Time every frame: the screen update (layout, compositing, writing to the
    terminal) plus the answer's Markdown rendered for it since the last one."""
    from karyi.cli.chat.answer import AnswerText

    update, draw = Screen._on_timer_update, AnswerText._draw
    drawing = [0.0, 0.0]

    def timed(self: Screen[object]) -> None:
        began, cpu = time.perf_counter(), time.thread_time()
        update(self)
        FRAMES.append(time.perf_counter() - began + drawing[0])
        CPU.append(time.thread_time() - cpu + drawing[1])
        drawing[:] = [0.0, 0.0]

    def timed_draw(self: AnswerText) -> None:
        began, cpu = time.perf_counter(), time.thread_time()
        draw(self)
        drawing[0] += time.perf_counter() - began
        drawing[1] += time.thread_time() - cpu

    Screen._on_timer_update = timed  # type: ignore[method-assign,assignment]
    AnswerText._draw = timed_draw  # type: ignore[method-assign]


def token(n: int) -> str:
    """The nth token of a Markdown answer: words, a line break now and then, a code block."""
    if n % 120 == 60:
        return "\n\n```python\ndef f(x):\n    return x + 1\n```\n\n"
    word = WORDS[n % len(WORDS)]
    return word + ("\n" if n % 14 == 13 else " ")


def run_child(root: Path, sid: str, report: Path) -> None:
    """Open the chat on `sid`, stream BENCH_TOKENS tokens, write what was measured."""
    import argparse

    from karyi.agent.events import Text
    from karyi.agent.frontend.startup import settings_for
    from karyi.agent.runtime import Runtime
    from karyi.cli.chat.app import ChatApp

    _timed_frames()
    tokens = int(os.environ["BENCH_TOKENS"])
    args = argparse.Namespace(model=None, dialect=None, profile=None)
    runtime = Runtime.open(root, settings_for(root, args))
    result: dict[str, float] = {}

    class Bench(ChatApp):
        async def show_history(self, every: bool = False) -> None:
            began = time.perf_counter()
            await super().show_history(every)
            await asyncio.sleep(0)
            result["history"] = time.perf_counter() - began
            self.run_worker(self.stream_answer())

        async def stream_answer(self) -> None:
            await asyncio.sleep(0.3)  # the history's first frames are not the stream's
            FRAMES.clear()
            CPU.clear()
            began = time.perf_counter()
            for n in range(tokens):
                self.feed(Text(token(n)))
                wait = began + (n + 1) / RATE - time.perf_counter()
                await asyncio.sleep(max(0.0, wait))
            self.feed.end_prose()
            await asyncio.sleep(0.2)
            result["seconds"] = time.perf_counter() - began
            self.exit(0)

    try:
        Bench(runtime, sid).run()
    finally:
        runtime.close()
    frames = sorted(FRAMES) or [0.0]
    cpu = sorted(CPU) or [0.0]
    result.update(
        cpu_p50=statistics.median(cpu),
        cpu_p99=cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))],
        cpu_max=cpu[-1],
        cpu_slow=sum(1 for f in cpu if f > 0.016),
    )
    result.update(
        frames=len(FRAMES),
        p50=statistics.median(frames),
        p99=frames[min(len(frames) - 1, int(len(frames) * 0.99))],
        max=frames[-1],
        slow=sum(1 for f in frames if f > 0.016),
        rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    )
    report.write_text(json.dumps(result))
