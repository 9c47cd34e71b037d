"""`karyi batch TASKS.jsonl`: every task of the file as an unattended background task on
a bounded local pool, with a progress bar, a final table and a JSON report
(docs/parallel.md#batches)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from karyi.agent.background.batch import (
    BatchResult,
    BatchTask,
    done_keys,
    parse_tasks,
    run_pool,
)
from karyi.agent.background.records import DONE
from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, UsageError
from karyi.core.atomic import write_atomic
from karyi.settings import Settings, load_settings


def cmd_batch(args: argparse.Namespace) -> int:
    """Run the batch; exit 1 when a line was malformed, a task failed or its check did."""
    path = Path(args.tasks)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    tasks, errors = parse_tasks(text, path.parent.resolve())
    for error in errors:
        err.print(f"[red]{path}: {error}[/red]")
    report = Path(args.report) if args.report else path.with_suffix(".report.json")
    folder = path.with_suffix(".batch").resolve()
    earlier = done_keys(report)
    todo = [t for t in tasks if t.key not in earlier]
    if len(todo) < len(tasks):
        err.print(f"skipping {len(tasks) - len(todo)} task(s) already done (see {report})")
    address = _ray_address(args.ray)
    if address is not None:
        results = _run_on_ray(todo, folder, address, args.model, err) if todo else []
    else:
        jobs = args.jobs or load_settings(None).max_parallel
        results = asyncio.run(_run(todo, folder, jobs, args.model, err)) if todo else []
    rows = [_earlier(t, earlier) or _by_key(results, t) for t in tasks]
    _write_report(report, rows, errors)
    Console(highlight=False, soft_wrap=True).print(_table(rows))
    err.print(f"report: {report}")
    failed = errors or any(r["status"] != DONE or r["check"] is False for r in rows)
    return EXIT_FAILED if failed else EXIT_OK


async def _run(
    tasks: list[BatchTask], folder: Path, jobs: int, model: str | None, err: Console
) -> list[BatchResult]:
    def settings_for(worktree: Path, task_model: str | None) -> Settings:
        return load_settings(worktree, flags={"model": task_model or model})

    with _progress(err, f"batch · {jobs} at a time", len(tasks)) as finished:
        return await run_pool(tasks, folder, settings_for, jobs, finished)


def _ray_address(flag: str | None) -> str | None:
    """None without --ray; else the address given or RAY_ADDRESS (a usage error when
    there is none, or when Ray is not installed)."""
    if flag is None:
        return None
    address = flag or os.environ.get("RAY_ADDRESS", "")
    if not address:
        raise UsageError("--ray needs an ADDRESS, or RAY_ADDRESS in the environment")
    if importlib.util.find_spec("ray") is None:
        raise UsageError("--ray needs Ray: pip install 'karyi-agent[ray]'")
    return address


def _run_on_ray(
    tasks: list[BatchTask], folder: Path, address: str, model: str | None, err: Console
) -> list[BatchResult]:
    from karyi.agent.background.on_ray import run_on_ray

    def values(task: BatchTask) -> dict[str, object]:
        return load_settings(None, flags={"model": task.model or model}).values

    with _progress(err, f"batch on Ray at {address}", len(tasks)) as finished:
        return run_on_ray(tasks, folder, address, values, finished)


@contextlib.contextmanager
def _progress(err: Console, title: str, total: int) -> Iterator[Callable[[BatchResult], None]]:
    """A progress bar on stderr, and what to call when a task has finished."""
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        bar = progress.add_task(title, total=total)

        def finished(result: BatchResult) -> None:
            progress.advance(bar)
            progress.console.print(f"line {result.line}: {result.status} · {result.task[:60]}")

        yield finished


def _earlier(task: BatchTask, earlier: dict[str, dict[str, object]]) -> dict[str, object] | None:
    row = earlier.get(task.key)
    return {**row, "line": task.line} if row is not None else None


def _by_key(results: list[BatchResult], task: BatchTask) -> dict[str, object]:
    return next(r.to_dict() for r in results if r.key == task.key)


def _write_report(report: Path, rows: list[dict[str, object]], errors: list[str]) -> None:
    body = {"tasks": rows, "errors": errors}
    data = json.dumps(body, indent=2, ensure_ascii=False).encode()
    write_atomic(report, data, display=str(report), make_parents=True)


def _table(rows: list[dict[str, object]]) -> Table:
    table = Table(
        "line", "task", "result", "check", "files", "tokens", "cost", "time", "branch / patch"
    )
    for r in rows:
        check = {True: "passed", False: "failed", None: "-"}[r["check"]]  # type: ignore[index]
        cost = f"${r['cost']:.4f}" if isinstance(r["cost"], float) else "-"
        tokens = f"{r['input_tokens']}/{r['output_tokens']}"
        where = str(r.get("branch") or r.get("patch") or r.get("error") or "")
        table.add_row(
            str(r["line"]),
            str(r["task"])[:40],
            str(r["status"]),
            check,
            str(len(r["files"])),  # type: ignore[arg-type]
            tokens,
            cost,
            f"{r['seconds']:.1f}s",
            where,
        )
    return table
