"""The terminal chat (`karyi chat`) in a real pseudo-terminal, against floors from the
same run:

- first screen: spawn -> the prompt drawn; floors: `import textual.app` (and its
  widgets) to exit, and a one-widget Textual app to its first screen. Target <= 0.5 s.
- streaming: the chat opened on a stored session of `TRANSCRIPT_LINES` lines of
  prose, then an answer streamed into it at `RATE` tokens per second (the feed the
  agent's events go through), every frame timed (layout, compositing and writing to
  the terminal: Textual's screen update). Target: every frame < 16 ms.
- RSS: the chat's peak resident memory at the end of the stream. Target < 150 MB.

Each measured process runs in its own pty (pexpect), 120 x 40 cells.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

RUNS = 3
TRANSCRIPT_LINES = 5000
TOKENS = 1000
RATE = 200
SMOKE: dict[str, object] = {"RUNS": 1, "TRANSCRIPT_LINES": 40, "TOKENS": 20}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""

SIZE = (40, 120)
LINES_PER_ANSWER = 20
FLOOR_IMPORT = "import textual.app, textual.widgets, textual.containers"
FLOOR_APP = """
from textual.app import App
from textual.widgets import Static
class Floor(App):
    def compose(self):
        yield Static("floor-ready")
    def on_mount(self):
        self.set_timer(0.05, self.exit)
Floor().run()
"""


def spawn(args: list[str], cwd: Path, env: dict[str, str]) -> pexpect.spawn:
    """`args` in a fresh pty of SIZE."""
    return pexpect.spawn(
        args[0], args[1:], cwd=str(cwd), env=env, dimensions=SIZE, encoding="utf-8", timeout=60
    )


def time_to(args: list[str], marker: str | None, cwd: Path, env: dict[str, str]) -> float:
    """Seconds from spawning `args` to `marker` on its screen (None: to its exit)."""
    began = time.perf_counter()
    child = spawn(args, cwd, env)
    child.expect(pexpect.EOF if marker is None else marker)
    took = time.perf_counter() - began
    if marker is not None:
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    child.close()
    return took


def write_session(root: Path, lines: int) -> str:
    """A stored session of about `lines` lines of prose (answers of LINES_PER_ANSWER)."""
    from karyi.agent.session.store import SessionStore
    from karyi.llm.base import Message

    store = SessionStore.for_workspace(root)
    sid = store.create(model="script:bench", dialect="toolsxml", profile="karyi", title="bench")
    for n in range(max(1, lines // LINES_PER_ANSWER)):
        turn = f"t{n:05d}"
        prompt = f"question {n}: explain the module"
        store.start_turn(sid, turn, prompt, "")
        store.append(sid, turn, Message("user", prompt))
        body = "\n".join(f"- point {i} of answer {n}: `value_{i}` matters" for i in range(19))
        store.append(sid, turn, Message("assistant", f"Answer {n}:\n{body}"))
        store.finish_turn(sid, turn, "end_turn", 100, 20)
    store.close()
    return sid


def environment(root: Path) -> dict[str, str]:
    """The chat's environment: a replayed model, no user settings, a colour terminal."""
    import os

    script = root / "empty.json"
    script.write_text('{"replies": []}')
    return {
        **os.environ,
        "KARYI_MODEL": f"script:{script}",
        "KARYI_CONFIG_DIR": str(root / "config"),
        "TERM": "xterm-256color",
    }


def first_screens(root: Path, env: dict[str, str]) -> dict[str, float]:
    """Medians of RUNS: the chat's first screen and the two floors."""
    py = sys.executable
    out: dict[str, list[float]] = {"import": [], "app": [], "chat": []}
    for _ in range(RUNS):
        out["import"].append(time_to([py, "-c", FLOOR_IMPORT], None, root, env))
        out["app"].append(time_to([py, "-c", FLOOR_APP], "floor-ready", root, env))
        out["chat"].append(time_to([py, "-m", "karyi", "chat"], "essage Karyi", root, env))
    return {k: statistics.median(v) for k, v in out.items()}


def stream(root: Path, env: dict[str, str], sid: str) -> dict[str, float]:
    """Run the streaming child in a pty; what it measured."""
    report = root / "stream.json"
    args = [sys.executable, __file__, "--child", str(root), sid, str(report)]
    child = spawn(args, root, {**env, "BENCH_TOKENS": str(TOKENS)})
    child.expect(pexpect.EOF, timeout=300)
    child.close()
    if not report.exists():
        raise SystemExit(f"the streaming child failed:\n{child.before}")
    result: dict[str, float] = json.loads(report.read_text())
    return result


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("hello\n")
        env = environment(root)
        firsts = first_screens(root, env)
        sid = write_session(root, TRANSCRIPT_LINES)
        s = stream(root, env, sid)
    print(f"import Textual (floor):     {firsts['import'] * 1000:7.0f} ms (median of {RUNS})")
    print(f"a one-widget Textual app:   {firsts['app'] * 1000:7.0f} ms to its first screen")
    print(
        f"karyi chat, first screen:   {firsts['chat'] * 1000:7.0f} ms "
        f"({firsts['chat'] / firsts['import']:.1f}x the import; target <= 500 ms)"
    )
    print(
        f"a {TRANSCRIPT_LINES:,}-line session drawn in {s['history'] * 1000:.0f} ms; "
        f"{TOKENS} tokens streamed at {RATE}/s in {s['seconds']:.1f} s"
    )
    print(
        f"frames: {s['frames']:.0f}, p50 {s['p50'] * 1000:.1f} ms, p99 {s['p99'] * 1000:.1f} ms, "
        f"max {s['max'] * 1000:.1f} ms (target < 16 ms); over 16 ms: {s['slow']:.0f}"
    )
    print(f"RSS at the end: {s['rss_mb']:.0f} MB (target < 150 MB)")


if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    from chat_stream_child import run_child

    run_child(Path(sys.argv[2]), sys.argv[3], Path(sys.argv[4]))
elif __name__ == "__main__":
    main()
