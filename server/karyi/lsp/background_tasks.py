"""Background tasks over LSP: start, list, show, answer, stop, apply, keep, discard, and
`karyi/taskUpdate` notifications (docs/protocol.md "Background tasks",
docs/parallel.md). The tasks run in this server's process, in their own worktrees; a
task that needs the user says so in a `taskUpdate` with status `waiting` and its
`question`, and `karyi/answerTask` resumes it alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pygls.exceptions import JsonRpcInvalidParams

from karyi.lsp.errors import RequestFailed, rpc
from karyi.lsp.params import checked
from karyi.lsp.server import KaryiServer
from karyi.lsp.wire.results import (
    Answered,
    ApplyResult,
    FileTexts,
    TaskDetail,
    TaskJson,
    TaskList,
    TaskReview,
)

if TYPE_CHECKING:
    from karyi.agent.background.manager import TaskManager
    from karyi.agent.background.records import TaskBook, TaskRecord
    from karyi.settings import Settings
    from karyi.workspace.editor import FileProposalJson, PlannedWrite


def start_recovery(ls: KaryiServer) -> asyncio.Task[None]:
    """Mark the tasks a killed server left running (once per server: `recover_tasks`)."""
    if ls.task_recovery is None:
        ls.task_recovery = ls.spawn(recover_tasks(ls))
    return ls.task_recovery


async def _manager(ls: KaryiServer) -> TaskManager:
    """The server's task manager, once the tasks a killed server left are marked."""
    await asyncio.shield(start_recovery(ls))
    return _made_manager(ls)


def _made_manager(ls: KaryiServer) -> TaskManager:
    """The server's task manager (made on first use, for the workspace's repository)."""
    from karyi.agent.background.manager import TaskManager
    from karyi.agent.background.worktrees import GitError, repository_root

    if ls.task_manager is not None:
        return ls.task_manager
    runtime = ls.require_host().runtime
    try:
        repo = repository_root(runtime.workspace.root)
    except GitError as exc:
        raise RequestFailed(str(exc)) from None

    def settings_for(_worktree: Path, model: str | None) -> Settings:
        settings = runtime.settings
        return settings.with_values(model=model) if model else settings

    manager = TaskManager(repo, settings_for, runtime.settings.max_parallel)
    manager.listeners.append(lambda r: ls.notify("karyi/taskUpdate", r.to_dict()))
    ls.task_manager = manager
    return manager


async def _asked(
    ls: KaryiServer, method: str, raw: Any
) -> tuple[dict[str, Any], TaskManager, TaskRecord]:
    """A request about one task: its checked params, the manager, and the task's record
    (an unknown `taskId` is InvalidParams)."""
    p = checked(method, raw)
    manager = await _manager(ls)
    return p, manager, _record(manager, p["taskId"])


def _record(manager: TaskManager, task_id: str) -> TaskRecord:
    from karyi.agent.background.records import TaskNotFound

    try:
        return manager.book.get(task_id)
    except TaskNotFound as exc:
        raise JsonRpcInvalidParams(str(exc).strip("'\"")) from None


async def _guarded(job: Any) -> Any:
    """A core call whose TaskError is the request's RequestFailed."""
    from karyi.agent.background.manager import TaskError

    try:
        return await asyncio.to_thread(job)
    except TaskError as exc:
        raise RequestFailed(str(exc)) from None


async def recover_tasks(ls: KaryiServer) -> None:
    """After `initialized`: the tasks a killed server left running become `interrupted`
    (docs/parallel.md#interrupted); each goes out as a `karyi/taskUpdate`, and the user
    is told once, in a `window/showMessage`."""
    from lsprotocol import types

    from karyi.agent.background.recovery import told

    try:
        manager = _made_manager(ls)
    except RequestFailed:
        return  # the workspace is no git repository: it has no tasks
    try:
        marked = await asyncio.to_thread(manager.recover)
    except Exception as exc:  # a broken record must not stop the server
        ls.log(f"karyi: checking the background tasks failed: {exc}", types.MessageType.Warning)
        return
    if marked:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, told(marked)))


@rpc
async def start_task(ls: KaryiServer, raw: Any) -> TaskJson:
    """`karyi/startTask` {task, ref?, check?, model?}: the new task's record."""
    p = checked("karyi/startTask", raw)
    manager = await _manager(ls)
    from karyi.agent.background.manager import create_task

    record: TaskRecord = await _guarded(
        lambda: create_task(
            manager.repo, p["task"], ref=p.get("ref"), check=p.get("check"), model=p.get("model")
        )
    )
    manager.launch(record)
    return dict(record.to_dict())


@rpc
async def tasks(ls: KaryiServer, raw: Any) -> TaskList:
    """`karyi/tasks`: every task of the repository, oldest first."""
    checked("karyi/tasks", raw)
    return {"tasks": [r.to_dict() for r in (await _manager(ls)).book.all()]}


@rpc
async def task(ls: KaryiServer, raw: Any) -> TaskDetail:
    """`karyi/task` {taskId}: the record, its diff, and each changed file before and
    after (for the editor's per-hunk review)."""
    _, manager, record = await _asked(ls, "karyi/task", raw)
    patch = manager.book.dir / record.id / "diff.patch"
    diff = patch.read_text(encoding="utf-8") if patch.exists() else ""
    detail: TaskDetail = {"diff": diff, "fileTexts": await asyncio.to_thread(_file_texts, record)}
    return cast(TaskDetail, {**record.to_dict(), **detail})  # with the record's keys (EXTENDS)


def _file_texts(record: TaskRecord) -> list[FileTexts]:
    from karyi.agent.background.worktrees import git

    repo = Path(record.repo)
    out: list[FileTexts] = []
    for path in record.files if record.head else []:
        before = git(repo, "show", f"{record.base}:{path}", check=False) or None
        after = git(repo, "show", f"{record.head}:{path}", check=False) or None
        out.append({"path": path, "uri": (repo / path).as_uri(), "before": before, "after": after})
    return out


@rpc
async def answer_task(ls: KaryiServer, raw: Any) -> Answered:
    """`karyi/answerTask` {taskId, allow, feedback?}: resume a waiting task."""
    p, manager, record = await _asked(ls, "karyi/answerTask", raw)
    if not manager.answer(record.id, p["allow"], p.get("feedback")):
        raise RequestFailed(f"task {record.id} waits for no answer (it is {record.status})")
    return {"answered": record.id}


@rpc
async def stop_task(ls: KaryiServer, raw: Any) -> TaskJson:
    """`karyi/stopTask` {taskId}: stop a running task; its partial work is kept."""
    _, manager, record = await _asked(ls, "karyi/stopTask", raw)
    if not manager.stop(record.id):
        raise RequestFailed(f"task {record.id} is not running in this server")
    return (await manager.wait(record.id)).to_dict()


@rpc
async def review_task(ls: KaryiServer, raw: Any) -> TaskReview:
    """`karyi/reviewTask` {taskId}: each changed file as an edit proposal (the merge with
    the working tree as it is now, in hunks) for the editor's per-hunk review."""
    from karyi.agent.background.hunk_review import review

    _, _, record = await _asked(ls, "karyi/reviewTask", raw)
    found = await _guarded(lambda: review(record))
    return {
        "task": record.to_dict(),
        "files": [_proposal(w) for w in found.writes],
        "notes": found.notes,
    }


def _proposal(write: PlannedWrite) -> FileProposalJson:
    """A file of the review as an edit proposal, named by its path in the repository."""
    out = write.to_json()
    out["path"] = write.display
    return out


@rpc
async def apply_task(ls: KaryiServer, raw: Any) -> ApplyResult:
    """`karyi/applyTask` {taskId, acceptedHunks?, modifiedContent?}: three-way merge into
    the working tree, all of it or the hunks the review accepted."""
    from karyi.agent.background.hunk_review import apply_reviewed
    from karyi.agent.background.review import apply_task as apply

    p, manager, asked = await _asked(ls, "karyi/applyTask", raw)
    task_id = asked.id
    accepted, modified = p.get("acceptedHunks"), p.get("modifiedContent")
    if accepted is None and modified is None:
        record, result = await _guarded(lambda: apply(manager.book, task_id))
    else:
        texts = {_relative(manager.repo, m["uri"]): m["text"] for m in modified or []}
        record, result = await _guarded(
            lambda: apply_reviewed(manager.book, task_id, accepted, texts)
        )
    ls.notify("karyi/taskUpdate", record.to_dict())
    return {
        "task": record.to_dict(),
        "merged": result.merged,
        "conflicts": result.conflicts,
        "notes": result.notes,
    }


def _relative(repo: Path, uri: str) -> str:
    """A file of `modifiedContent` (a URI, an absolute path or a repository path) as a
    path relative to the repository."""
    from karyi.lsp.editor_context import uri_path

    path = Path(uri_path(uri)) if uri.startswith("file:") else Path(uri)
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(repo.resolve()).as_posix()
    except ValueError:
        raise JsonRpcInvalidParams(f"modifiedContent: {uri} is not in {repo}") from None


@rpc
async def keep_task(ls: KaryiServer, raw: Any) -> TaskJson:
    """`karyi/keepTask` {taskId}: keep the branch, remove the worktree."""
    from karyi.agent.background.review import keep_task as keep

    return await _finish(ls, "karyi/keepTask", raw, keep)


@rpc
async def discard_task(ls: KaryiServer, raw: Any) -> TaskJson:
    """`karyi/discardTask` {taskId}: remove the worktree and the branch."""
    from karyi.agent.background.review import discard_task as discard

    return await _finish(ls, "karyi/discardTask", raw, discard)


async def _finish(
    ls: KaryiServer, method: str, raw: Any, finish: Callable[[TaskBook, str], TaskRecord]
) -> TaskJson:
    """End a finished task's life one way (`finish`: keep, discard); its record after,
    as the answer and as a `karyi/taskUpdate`."""
    _, manager, record = await _asked(ls, method, raw)
    done: TaskRecord = await _guarded(lambda: finish(manager.book, record.id))
    ls.notify("karyi/taskUpdate", done.to_dict())
    return done.to_dict()
