"""Batches on a Ray cluster (`karyi batch --ray ADDRESS`, docs/parallel.md#ray).

Ray does the scheduling, placement and retries: every task is one Ray task (one CPU,
retried by Ray when its worker or node dies); Karyi adds no scheduler. A worker gets the
repository as a git bundle sent through Ray's object store (a local repository) or
clones it (a URL), runs the task unattended in a worktree of that copy, and returns the
patch, the transcript and the cost. The driver lands each patch as a commit on a branch
of its own in the local repository (through a temporary index: no checkout, no working
tree touched), or writes it as a patch file for a URL.

The model's API key travels as an object in Ray's object store, wrapped so that its
repr is masked, and is set in the worker's environment only while the task runs: it is
never a task argument's text, an environment variable of the job's runtime_env, or
anything else Ray logs or shows on its dashboard or in its job metadata.

Ray is imported inside these functions only: without `--ray` nothing of it is loaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from karyi.agent.background.batch import (
    GIT_SETUP,
    BatchResult,
    BatchTask,
    fetch_into,
    run_batch_task,
)
from karyi.agent.background.worktrees import git, resolve
from karyi.settings import Settings

KEY_VARIABLE = "KARYI_API_KEY"


class SecretBox:
    """A secret that never shows in a repr, a log line or an error message."""

    def __init__(self, value: str | None) -> None:
        self.value = value

    def __repr__(self) -> str:
        return "SecretBox(***)"

    __str__ = __repr__


@contextlib.contextmanager
def _key_in_environment(box: SecretBox) -> Iterator[None]:
    """`KARYI_API_KEY` set while the task runs in this worker, as it was afterwards."""
    before = os.environ.get(KEY_VARIABLE)
    if box.value:
        os.environ[KEY_VARIABLE] = box.value
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(KEY_VARIABLE, None)
        else:
            os.environ[KEY_VARIABLE] = before


def work(
    task: dict[str, Any], bundle: bytes | None, values: dict[str, Any], key: SecretBox
) -> dict[str, Any]:
    """One batch task on a Ray worker: the repository's copy, the agent, the result (the
    `BatchResult` fields, with the patch and transcript texts)."""
    job = BatchTask(**task)
    with tempfile.TemporaryDirectory(prefix="karyi-ray-") as tmp:
        folder = Path(tmp)
        source = job.repo
        if bundle is not None:
            source = str(folder / "repo.bundle")
            Path(source).write_bytes(bundle)
        copy = folder / "repo"
        commit = fetch_into(copy, source, job.ref or "HEAD")
        local = replace(job, repo=str(copy), ref=commit)
        with _key_in_environment(key):
            result = asyncio.run(
                run_batch_task(local, folder / "batch", lambda _w, _m: Settings(values))
            )
    result.key, result.repo, result.branch = job.key, job.repo, None
    return asdict(result)


def bundle_of(repo: Path, ref: str) -> bytes:
    """A git bundle of `ref` (a branch, a tag or HEAD) of a local repository, for
    workers that do not have its files."""
    with tempfile.TemporaryDirectory(prefix="karyi-bundle-") as tmp:
        path = Path(tmp) / "repo.bundle"
        git(repo, "bundle", "create", "--quiet", str(path), ref)
        return path.read_bytes()


def land_patch(repo: Path, ref: str, patch: str, branch: str) -> None:
    """The patch as a commit on `branch` (new, from `ref`), without a checkout: applied to
    a temporary index and written as a commit."""
    base = resolve(repo, ref)
    with tempfile.TemporaryDirectory(prefix="karyi-land-") as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "read-tree", base, env=env)
        if patch:
            subprocess.run(
                ["git", "-C", str(repo), "apply", "--cached", "--binary", "-"],
                input=patch.encode(),
                env=env,
                check=True,
                capture_output=True,
            )
        tree = git(repo, "write-tree", env=env).strip()
    commit = git(repo, "commit-tree", tree, "-p", base, "-m", f"karyi batch: {branch}").strip()
    git(repo, "branch", branch, commit)


def run_on_ray(
    tasks: list[BatchTask],
    folder: Path,
    address: str,
    settings_values: Callable[[BatchTask], Mapping[str, Any]],
    done: Callable[[BatchResult], None],
) -> list[BatchResult]:
    """Every task as a Ray task on the cluster at `address`; results in the tasks' order."""
    import ray

    ray.init(address=address, logging_level=logging.WARNING, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1, max_retries=3)(work)
        key = ray.put(
            SecretBox(os.environ.get(KEY_VARIABLE) or _settings_key(tasks, settings_values))
        )
        bundles: dict[tuple[str, str], Any] = {}
        pending: dict[Any, BatchTask] = {}
        for task in tasks:
            bundle = None
            if not task.is_url:
                where = (task.repo, task.ref or "HEAD")
                if where not in bundles:
                    bundles[where] = ray.put(bundle_of(Path(task.repo), where[1]))
                bundle = bundles[where]
            values = dict(settings_values(task))
            pending[remote.remote(asdict(task), bundle, values, key)] = task
        results: dict[str, BatchResult] = {}
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            task = pending.pop(ready[0])
            result = _landed(task, BatchResult(**ray.get(ready[0])), folder)
            results[task.key] = result
            done(result)
    finally:
        ray.shutdown()
    return [results[t.key] for t in tasks]


def _settings_key(
    tasks: list[BatchTask], settings_values: Callable[[BatchTask], Mapping[str, Any]]
) -> str | None:
    """The key the driver's settings find for the first task's model."""
    return Settings(dict(settings_values(tasks[0]))).api_key() if tasks else None


def _landed(task: BatchTask, result: BatchResult, folder: Path) -> BatchResult:
    """The result with its changes left where the user finds them."""
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / f"{task.key}.transcript.jsonl"
    transcript.write_text(result.transcript_text, encoding="utf-8")
    if task.is_url:
        patch = folder / f"{task.key}.patch"
        patch.write_text(result.patch_text, encoding="utf-8")
        result.patch = str(patch)
        return result
    branch = f"karyi/batch-{task.key}-ray-{os.urandom(2).hex()}"
    with GIT_SETUP:
        land_patch(Path(task.repo), task.ref or "HEAD", result.patch_text, branch)
    result.branch = branch
    return result
