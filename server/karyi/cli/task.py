"""`karyi task start|list|show|answer|stop|apply|keep|discard`: background tasks from the
terminal (docs/parallel.md#the-command-line). The tasks run in a detached runner (`task_runner.py`),
so they go on after this command returns."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from karyi.agent.background.manager import TaskError, create_task
from karyi.agent.background.records import (
    ACTIVE,
    FAILED,
    FINISHED,
    QUEUED,
    STOPPED,
    TaskBook,
    TaskNotFound,
    TaskRecord,
)
from karyi.agent.background.recovery import alive, recover, told
from karyi.agent.background.review import apply_task, discard_task, keep_task
from karyi.agent.background.worktrees import GitError, repository_root
from karyi.agent.frontend.startup import EXIT_FAILED, EXIT_OK, UsageError, workspace_root
from karyi.cli.task_runner import RUNNER, request, run_runner, spawn_runner


def cmd_task(args: argparse.Namespace) -> int:
    """Dispatch `karyi task ACTION`."""
    try:
        repo = repository_root(workspace_root(args.workspace))
    except GitError as exc:
        raise UsageError(str(exc)) from None
    if args.action == RUNNER:
        return run_runner(repo)
    book = TaskBook(repo)
    action = ACTIONS[args.action]
    try:
        return action(book, args)
    except (TaskError, TaskNotFound) as exc:
        raise UsageError(str(exc).strip("'\"")) from None


def _out() -> Console:
    return Console(highlight=False, soft_wrap=True)


def _start(book: TaskBook, args: argparse.Namespace) -> int:
    text = sys.stdin.read() if args.task == ["-"] else " ".join(args.task)
    record = create_task(book.repo, text, ref=args.ref, check=args.check, model=args.model)
    spawn_runner(book.repo)
    if args.wait:
        record = _wait(book, record.id)
        return _print(record, args.json)
    print(json.dumps(record.to_dict()) if args.json else record.id)
    return EXIT_OK


def _recover(book: TaskBook) -> None:
    """Mark the tasks whose process is gone interrupted, and say so (once: the next
    command finds them marked already)."""
    marked = recover(book)
    if marked:
        print(told(marked), file=sys.stderr)


def _current(book: TaskBook, task_id: str) -> TaskRecord:
    """The record, with the tasks whose process died marked interrupted."""
    _recover(book)
    return book.get(task_id)


def _wait(book: TaskBook, task_id: str) -> TaskRecord:
    """Block until the task has finished (watching its record, not sleeping on it)."""
    from watchfiles import watch

    record = _current(book, task_id)
    if record.status not in ACTIVE:
        return record
    for _ in watch(book.dir, rust_timeout=1000, yield_on_timeout=True, recursive=False):
        record = _current(book, task_id)
        if record.status not in ACTIVE:
            break
    return record


def _list(book: TaskBook, args: argparse.Namespace) -> int:
    _recover(book)
    records = book.all()
    if args.json:
        print(json.dumps([r.to_dict() for r in records], ensure_ascii=False))
        return EXIT_OK
    if not records:
        print('no tasks (karyi task start "what to do")')
        return EXIT_OK
    table = Table("id", "status", "step", "elapsed", "cost", "files", "task")
    for r in records:
        cost = f"${r.cost:.4f}" if r.cost is not None else "-"
        step = r.step or (r.error or "")
        table.add_row(
            r.id, r.status, step[:40], f"{r.elapsed:.0f}s", cost, str(len(r.files)), r.task[:50]
        )
    _out().print(table)
    return EXIT_OK


def _show(book: TaskBook, args: argparse.Namespace) -> int:
    record = _wait(book, args.id) if args.wait else _current(book, args.id)
    code = _print(record, args.json)
    if args.diff and not args.json:
        patch = book.dir / record.id / "diff.patch"
        print(patch.read_text(encoding="utf-8") if patch.exists() else "(no diff yet)")
    return code


def _print(record: TaskRecord, as_json: bool) -> int:
    if as_json:
        print(json.dumps(record.to_dict(), ensure_ascii=False))
    else:
        out = _out()
        out.print(f"task {record.id} · {record.status} · branch {record.branch}")
        out.print(f"  {record.task}")
        for label, value in _facts(record):
            out.print(f"  {label}: {value}")
    return EXIT_FAILED if record.status == FAILED else EXIT_OK


def _facts(record: TaskRecord) -> list[tuple[str, str]]:
    facts = [("elapsed", f"{record.elapsed:.1f}s"), ("worktree", record.worktree)]
    if record.step:
        facts.append(("step", record.step))
    if record.question:
        facts.append(("waits for", f"{record.question['description']} (karyi task answer)"))
    facts.append(("tokens", f"{record.input_tokens} in, {record.output_tokens} out"))
    if record.cost is not None:
        facts.append(("cost", f"${record.cost:.4f}"))
    if record.files:
        facts.append(("files", ", ".join(record.files)))
    if record.check_result is not None:
        verdict = "passed" if record.check_result.passed else "failed"
        facts.append(("check", f"{record.check_result.command}: {verdict}"))
    if record.final_answer:
        facts.append(("answer", record.final_answer))
    if record.error:
        facts.append(("error", record.error))
    return facts


def _answer(book: TaskBook, args: argparse.Namespace) -> int:
    record = _current(book, args.id)
    if record.question is None:
        raise UsageError(f"task {record.id} waits for no answer (it is {record.status})")
    request(book, record, "answer", {"allow": args.reply == "yes", "feedback": args.feedback})
    print(f"answered task {record.id}: {args.reply}")
    return EXIT_OK


def _stop(book: TaskBook, args: argparse.Namespace) -> int:
    record = _current(book, args.id)
    if record.status not in ACTIVE:
        raise UsageError(f"task {record.id} is {record.status}, not running")
    if record.status == QUEUED and not alive(record.runner_pid):
        record.status, record.stop_reason, record.finished = STOPPED, "stopped", time.time()
        book.save(record)
    else:
        request(book, record, "stop", {})
        if args.wait:
            record = _wait(book, record.id)
    print(f"task {record.id}: {record.status if record.status in FINISHED else 'stopping'}")
    return EXIT_OK


def _apply(book: TaskBook, args: argparse.Namespace) -> int:
    record, result = apply_task(book, args.id)
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        out = _out()
        for path in result.merged:
            out.print(f"applied {path}")
        for path in result.conflicts:
            out.print(f"[yellow]conflict {path}[/yellow]")
        for note in result.notes:
            out.print(f"  {note}")
        out.print(f"task {record.id} applied to {Path(record.repo)}")
    return EXIT_FAILED if result.conflicts else EXIT_OK


def _keep(book: TaskBook, args: argparse.Namespace) -> int:
    record = keep_task(book, args.id)
    print(f"task {record.id}: kept as branch {record.branch}")
    return EXIT_OK


def _discard(book: TaskBook, args: argparse.Namespace) -> int:
    record = discard_task(book, args.id)
    print(f"task {record.id}: discarded (worktree and branch removed)")
    return EXIT_OK


ACTIONS = {
    "start": _start,
    "list": _list,
    "show": _show,
    "answer": _answer,
    "stop": _stop,
    "apply": _apply,
    "keep": _keep,
    "discard": _discard,
}
