"""Background tasks over HTTP: `/agent/tasks` (docs/gateway.md "Background tasks",
docs/parallel.md). The same operations as the language server's `karyi/*Task` methods,
on the gateway's workspace. A task runs commands and its check command, so starting one
needs `gateway.enableShell`, like the shell tool.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from karyi.agent.background.manager import TaskError, TaskManager, create_task
from karyi.agent.background.records import TaskNotFound, TaskRecord
from karyi.agent.background.recovery import told
from karyi.agent.background.review import apply_task, discard_task, keep_task
from karyi.agent.background.worktrees import GitError, repository_root
from karyi.gateway.errors import GatewayError
from karyi.gateway.service import Gateway
from karyi.settings import Settings

log = logging.getLogger(__name__)

START_FIELDS = {"task": str, "ref": str, "check": str, "model": str}


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
    except json.JSONDecodeError as exc:
        raise GatewayError("invalid_request", f"the body is not JSON: {exc.msg}") from None
    if not isinstance(data, dict):
        raise GatewayError("invalid_request", "the body must be a JSON object")
    return data


def _start_params(data: dict[str, Any]) -> dict[str, str | None]:
    for name in data:
        if name not in START_FIELDS:
            raise GatewayError("invalid_request", f"{name}: unknown field")
    for name, value in data.items():
        if value is not None and not isinstance(value, str):
            raise GatewayError("invalid_request", f"{name}: expected a string")
    if not data.get("task"):
        raise GatewayError("invalid_request", "task: required, a non-empty string")
    return {k: data.get(k) for k in START_FIELDS}


class TaskRoutes:
    """The gateway's task manager (made on first use, when the tasks a killed gateway
    left running are marked interrupted) and what each route does."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self._manager: TaskManager | None = None

    @property
    def manager(self) -> TaskManager:
        """The manager for the workspace's repository."""
        if self._manager is None:
            runtime = self.gateway.runtime
            try:
                repo = repository_root(runtime.workspace.root)
            except GitError as exc:
                raise GatewayError("invalid_request", str(exc)) from None

            def settings_for(_worktree: Path, model: str | None) -> Settings:
                s = runtime.settings
                return s.with_values(model=model) if model else s

            self._manager = TaskManager(repo, settings_for, runtime.settings.max_parallel)
            marked = self._manager.recover()
            if marked:  # the records say `interrupted`; the gateway's log says it once
                log.warning("%s", told(marked))
        return self._manager

    def record(self, task_id: str) -> TaskRecord:
        """The task, or `not_found`."""
        try:
            return self.manager.book.get(task_id)
        except TaskNotFound as exc:
            raise GatewayError("not_found", str(exc).strip("'\"")) from None

    async def start(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create the task and run it in the gateway's process."""
        if not self.gateway.runtime.settings.gateway.enable_shell:
            raise GatewayError(
                "tool_disabled", "background tasks run commands: set gateway.enableShell"
            )
        p = _start_params(data)
        manager = self.manager
        job = functools.partial(
            create_task,
            manager.repo,
            str(p["task"]),
            ref=p["ref"],
            check=p["check"],
            model=p["model"],
        )
        record: TaskRecord = await _guarded(job, "invalid_request")
        manager.launch(record)
        return dict(record.to_dict())

    async def act(self, task_id: str, action: str, data: dict[str, Any]) -> dict[str, Any]:
        """answer | stop | apply | keep | discard."""
        manager, record = self.manager, self.record(task_id)
        if action == "answer":
            if not isinstance(data.get("allow"), bool):
                raise GatewayError("invalid_request", "allow: required, true or false")
            feedback = data.get("feedback")
            if not manager.answer(record.id, data["allow"], feedback):
                raise GatewayError("not_pending", f"task {record.id} waits for no answer")
            return {"answered": record.id}
        if action == "stop":
            if not manager.stop(record.id):
                raise GatewayError("not_pending", f"task {record.id} is not running here")
            return (await manager.wait(record.id)).to_dict()
        if action == "apply":
            done, result = await _guarded(lambda: apply_task(manager.book, record.id))
            return {"task": done.to_dict(), **result.to_dict()}
        operation = {"keep": keep_task, "discard": discard_task}.get(action)
        if operation is None:
            raise GatewayError("not_found", f"no task action {action!r}")
        done = await _guarded(lambda: operation(manager.book, record.id))
        return dict(done.to_dict())


async def _guarded(job: Callable[[], Any], code: str = "session_busy") -> Any:
    """The job's result; a TaskError is the gateway error `code` (a bad request when
    starting, a task in the wrong state otherwise)."""
    try:
        return await asyncio.to_thread(job)
    except TaskError as exc:
        raise GatewayError(code, str(exc)) from None


def install_task_routes(app: FastAPI, gateway: Gateway) -> None:
    """Add `/agent/tasks` and its sub-routes to the app."""
    routes = TaskRoutes(gateway)
    app.state.task_routes = routes

    @app.post("/agent/tasks", summary="Start a background task")
    async def start(request: Request) -> JSONResponse:
        return JSONResponse(await routes.start(await _body(request)))

    @app.get("/agent/tasks", summary="Every background task")
    async def listed() -> JSONResponse:
        return JSONResponse({"tasks": [r.to_dict() for r in routes.manager.book.all()]})

    @app.get("/agent/tasks/{task_id}", summary="One background task, with its diff")
    async def shown(task_id: str) -> JSONResponse:
        record = routes.record(task_id)
        patch = routes.manager.book.dir / record.id / "diff.patch"
        diff = patch.read_text(encoding="utf-8") if patch.exists() else ""
        return JSONResponse({**record.to_dict(), "diff": diff})

    @app.post("/agent/tasks/{task_id}/{action}", summary="answer, stop, apply, keep, discard")
    async def act(task_id: str, action: str, request: Request) -> JSONResponse:
        return JSONResponse(await routes.act(task_id, action, await _body(request)))
