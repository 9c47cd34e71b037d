"""`karyi batch TASKS.jsonl`: every task of the file as an unattended background task on
a bounded local pool, with a progress bar, a final table and a JSON report
(docs/parallel.md#batches)."""

from __future__ import annotations

import argparse
import asyncio
import json
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

    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=err, transient=False) as progress:
        bar = progress.add_task(f"batch · {jobs} at a time", total=len(tasks))

        def finished(result: BatchResult) -> None:
            progress.advance(bar)
            progress.console.print(f"line {result.line}: {result.status} · {result.task[:60]}")

        return await run_pool(tasks, folder, settings_for, jobs, finished)


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
