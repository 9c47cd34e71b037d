"""The navigation tools against `rg -w` on the same questions, and their latency.

1. Accuracy on code none of us wrote: the standard library's `email` package (copied as
   `emailpkg`, tests/support/email_package.py). For each name, `references` through the
   tool (the real `Tool.run`, Karyi's basedpyright) and `rg -w NAME`, both against
   the ground truth from Python's own `ast` (every place the name is written as an
   identifier or an `__all__` entry): precision, recall and what the model reads
   (characters of the result).
2. Latency on a generated 1,000-file project (100 packages of 10 modules calling each
   other): `references` and `definition` by name, cold (the server's start included)
   and warm (p50, p95); target warm p50 <= 50 ms.
3. The server's memory (RSS of its process tree) after the queries, and the idle
   shutdown: with `idle_seconds` set short, how long after the last call the process is
   gone.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# The repository root, for tests.support (tests/ itself on the path would stand in for
# packages named like its folders).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karyi.navigation.navigator import Navigator
from karyi.settings import Settings
from karyi.settings.language_servers import Navigation
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry
from karyi.workspace.workspace import Workspace
from tests.support.email_package import copy_email, identifier_places
from tests.support.rg_words import rg_words

PACKAGES = 100
MODULES = 10
QUERIES = 40
IDLE_SECONDS = 1.0
SMOKE: dict[str, object] = {"PACKAGES": 3, "MODULES": 3, "QUERIES": 4}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""

NAMES = [
    "formatdate",
    "decode_params",
    "_splitparam",
    "parsedate_tz",
    "_formatparam",
    "collapse_rfc2231_value",
    "make_msgid",
    "decode_rfc2231",
    "_has_surrogates",
    "get_content_charset",
    "set_boundary",
    "get_param",
    "quote",
    "unquote",
    "encode",
]
"""Names asked about in `email`: functions, methods, and a few common words."""

REG = builtin_registry()


def _context(root: Path, idle_seconds: float = 300) -> ToolContext:
    ws = Workspace.open(root)
    settings = Settings()
    nav = Navigator(Navigation(idle_seconds=idle_seconds), root, ws.documents)
    return ToolContext(workspace=ws, settings=settings, navigator=nav)


async def references(ctx: ToolContext, name: str) -> tuple[set[tuple[str, int, int]], int]:
    """What a model gets by asking `references` for `name`, and, when several symbols
    have that name, asking again for each listed one by its path and line, as the
    answer says to: the places and the characters read."""
    tool = REG.find("karyi.references")
    result = await tool.run({"symbol": name}, ctx)
    results = [result]
    if not result.success and "give `path`" in result.llm_content:
        for choice in result.llm_content.splitlines()[1:]:
            path, line, _what = choice.split(":", 2)
            results.append(await tool.run({"symbol": name, "path": path, "line": int(line)}, ctx))
    places = set()
    for one in results:
        if one.success and isinstance(one.data, dict):
            places |= {(d["path"], d["line"], d["column"]) for d in one.data["locations"]}
    return places, sum(len(one.llm_content) for one in results)


async def accuracy(report: Callable[[str], None]) -> None:
    """Precision, recall and result size of `references` and of `rg -w`."""
    tmp = Path(tempfile.mkdtemp(prefix="karyi-bench-nav-"))
    try:
        root = copy_email(tmp)
        ctx = _context(root)
        tally = {"tool": [0, 0, 0, 0], "rg": [0, 0, 0, 0]}  # found, true, truth, chars
        for name in NAMES:
            truth = identifier_places(root, name)
            got, read = await references(ctx, name)
            rg, size = rg_words(root, name)
            for key, found, chars in (("tool", got, read), ("rg", rg, size)):
                row = tally[key]
                row[0] += len(found)
                row[1] += len(found & truth)
                row[2] += len(truth)
                row[3] += chars
        assert ctx.navigator is not None
        await ctx.navigator.aclose()
        report(f"email package: {len(NAMES)} names, ground truth from ast")
        for key, (found, true, truth_n, chars) in tally.items():
            precision = true / found if found else 0.0
            report(
                f"  {key:>4}: precision {precision:.2f}  recall {true / truth_n:.2f}  "
                f"{found} places  {chars} chars"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def make_project(root: Path) -> list[str]:
    """PACKAGES x MODULES modules whose functions call the previous module's; the
    function names, unique across the project."""
    names = []
    for p in range(PACKAGES):
        package = root / f"pkg{p:03d}"
        package.mkdir()
        (package / "__init__.py").write_text("")
        for m in range(MODULES):
            name = f"work_{p:03d}_{m:02d}"
            names.append(name)
            calls = ""
            if m:
                calls = f"from pkg{p:03d}.mod{m - 1:02d} import work_{p:03d}_{m - 1:02d}\n\n"
            body = f"work_{p:03d}_{m - 1:02d}(x) + 1" if m else "x"
            (package / f"mod{m:02d}.py").write_text(
                f"{calls}\ndef {name}(x: int) -> int:\n    return {body}\n"
            )
    return names


def rss_mb(pid: int) -> float:
    """Resident memory of the process group `pid` leads, in MB."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != pid:
                continue
            status = (entry / "status").read_text()
        except (OSError, ProcessLookupError):
            continue
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


async def latency(report: Callable[[str], None]) -> None:
    """Cold and warm latency on the generated project; memory; the idle shutdown."""
    tmp = Path(tempfile.mkdtemp(prefix="karyi-bench-nav-"))
    try:
        names = make_project(tmp)
        ctx = _context(tmp, IDLE_SECONDS)
        refs, definition = REG.find("karyi.references"), REG.find("karyi.definition")
        rng = random.Random(7)
        start = time.perf_counter()
        first = await refs.run({"symbol": rng.choice(names)}, ctx)
        cold = time.perf_counter() - start
        assert first.success, first.llm_content
        warm: list[float] = []
        for _ in range(QUERIES):
            tool = refs if rng.random() < 0.5 else definition
            start = time.perf_counter()
            result = await tool.run({"symbol": rng.choice(names)}, ctx)
            warm.append(time.perf_counter() - start)
            assert result.success, result.llm_content
        nav = ctx.navigator
        assert nav is not None
        server = nav.servers["python"]
        pid = server.process.pid if server.process else 0
        memory = rss_mb(pid or 0)
        last = time.perf_counter()
        await asyncio.wait_for(server.stopped.wait(), IDLE_SECONDS + 30)
        gone = time.perf_counter() - last
        warm.sort()
        p95 = warm[min(len(warm) - 1, int(len(warm) * 0.95))]
        report(f"project: {len(names)} files; {QUERIES} warm queries (references, definition)")
        report(f"  cold (server start included): {cold * 1000:.0f} ms")
        report(
            f"  warm: p50 {statistics.median(warm) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms "
            "(target p50 <= 50 ms)"
        )
        report(f"  server RSS: {memory:.0f} MB")
        report(f"  idle shutdown (idle_seconds {IDLE_SECONDS:g}): gone {gone:.1f} s after")
        await nav.aclose()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(report: Callable[[str], None] = print) -> None:
    """Run both parts."""
    asyncio.run(accuracy(report))
    asyncio.run(latency(report))


if __name__ == "__main__":
    main()
