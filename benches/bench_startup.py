"""Start-up through the public interfaces, each against a floor started the same way
(issue [fast-paths]), ratios from one run (the machine may be shared: compare those).

- `karyi acp`: spawn -> `initialize` answered, then `session/new` sent at once and
  answered (it waits for the agent stack `initialize` started loading), then a second
  `session/new`; floor: a bare agent on the ACP SDK answering the same two methods.
  Targets: initialize <= 0.5 s, session/new <= 0.1 s.
- `karyi lsp --stdio`: spawn -> `initialize` result; floor: an empty pygls server.
  Target <= 0.3 s. Then `initialized` -> a `didOpen` sent with it handled (the agent
  host is built off the event loop meanwhile), and -> the first request that needs the
  host answered.
- `karyi run`: spawn -> the first model request reaches the (fake) model server;
  floor: a script sending the same request with the bare openai SDK. Target <= 0.6 s.
- The import-time top ten of each front end (`python -X importtime`, self time summed
  per top-level package).

Every process runs from compiled bytecode, as an installed karyi does (`compiled_bytecode`).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound

from bench_lsp import EMPTY_SERVER, start, stop

# The repository root, for tests.support: tests/ itself on the path would stand in
# for packages named like its folders (tests/acp for the ACP SDK, tests/secrets for
# the standard library's secrets).
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import contextlib

from tests.support.fake_model_server import FakeModelServer

RUNS = 5
SMOKE: dict[str, object] = {"RUNS": 1}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""
BARE_ACP = """
import asyncio
from acp import PROTOCOL_VERSION, run_agent
from acp.schema import InitializeResponse, NewSessionResponse

class Bare:
    async def initialize(self, protocol_version, client_capabilities=None, client_info=None, **kw):
        return InitializeResponse(protocol_version=PROTOCOL_VERSION)

    async def new_session(self, cwd, mcp_servers=None, **kw):
        return NewSessionResponse(session_id="s1")

asyncio.run(run_agent(Bare()))
"""
BARE_RUN = """
import sys, openai
client = openai.OpenAI(base_url=sys.argv[1], api_key="sk-bench")
for _ in client.chat.completions.create(
    model="bench", messages=[{"role": "user", "content": "hi"}], stream=True
):
    pass
"""
FRONT_ENDS = {
    "karyi acp": "karyi.acp.server",
    "karyi lsp": "karyi.lsp.features",
    "karyi run": "karyi.cli.run",
}


def _env(root: Path, fake: FakeModelServer) -> dict[str, str]:
    return {
        **os.environ,
        "KARYI_CONFIG_DIR": str(root / "config"),
        "KARYI_MODEL": "openai:bench",
        "KARYI_BASE_URL": fake.openai_url,
        "OPENAI_API_KEY": "sk-bench",
    }


async def _ask(
    proc: asyncio.subprocess.Process,
    ident: int,
    method: str,
    params: object,
    notes: list[dict[str, object]] | None = None,
) -> dict[str, object]:
    """Send one JSON-RPC request and read lines until its answer (its result); the
    notifications read meanwhile go to `notes`."""
    assert proc.stdin is not None
    message = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
    proc.stdin.write(json.dumps(message).encode() + b"\n")
    await proc.stdin.drain()
    answer = await _read_until(proc, lambda m: m.get("id") == ident, notes)
    if "error" in answer:
        raise RuntimeError(f"{method}: {answer['error']}")
    result = answer.get("result")
    return result if isinstance(result, dict) else {}


async def _read_until(
    proc: asyncio.subprocess.Process,
    found: Callable[[dict[str, object]], bool],
    notes: list[dict[str, object]] | None = None,
) -> dict[str, object]:
    """Read messages until one is `found`; the others go to `notes`."""
    assert proc.stdout is not None
    while line := await proc.stdout.readline():
        message = json.loads(line)
        if found(message):
            return dict(message)
        if notes is not None:
            notes.append(message)
    raise RuntimeError("the agent exited before the awaited message")


def _opened(session_id: object) -> Callable[[dict[str, object]], bool]:
    """The first `config_option_update` of `session_id`: its runtime is open."""

    def found(message: dict[str, object]) -> bool:
        params = message.get("params")
        if message.get("method") != "session/update" or not isinstance(params, dict):
            return False
        update = params.get("update") or {}
        kind = update.get("sessionUpdate") if isinstance(update, dict) else None
        return params.get("sessionId") == session_id and kind == "config_option_update"

    return found


async def acp_once(
    argv: list[str], root: Path, env: dict[str, str], *, opens: bool = False
) -> tuple[float, ...]:
    """(spawn -> initialize, session/new at once, a second session/new) in seconds; with
    `opens`, also session/new at once -> its runtime open (the first
    `config_option_update` of the session, docs/acp.md#start-up)."""
    began = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env,
        cwd=root,
    )
    notes: list[dict[str, object]] = []
    try:
        await _ask(proc, 1, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
        initialized = time.perf_counter()
        new = {"cwd": str(root), "mcpServers": []}
        created = await _ask(proc, 2, "session/new", new, notes)
        first = time.perf_counter()
        await _ask(proc, 3, "session/new", new, notes)
        second = time.perf_counter()
        figures = [initialized - began, first - initialized, second - first]
        if opens:
            found = _opened(created.get("sessionId"))
            if not any(found(m) for m in notes):
                await _read_until(proc, found)
            figures.append(time.perf_counter() - initialized)  # an upper bound: see above
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        await proc.wait()
    return tuple(figures)


def run_once(argv: list[str], fake: FakeModelServer, env: dict[str, str], root: Path) -> float:
    """Spawn -> the fake model server has the process's first request, in seconds."""
    seen = len(fake.requests)
    began = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        env=env,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        fake.wait_requests(seen + 1, timeout=600)  # a loaded machine: no figure is lost
        return time.perf_counter() - began
    except TimeoutError:
        proc.kill()
        raise RuntimeError(f"no model request from {argv}: {proc.communicate()[1]}") from None
    finally:
        proc.wait(60)


def import_top(module: str, count: int = 10) -> tuple[float, list[tuple[str, float]]]:
    """Total import seconds of `module` and its `count` costliest top-level packages."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        check=True,
    )
    per: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        self_us, _cumulative, name = (p.strip() for p in line[12:].split("|"))
        top = name.split(".")[0]
        per[top] = per.get(top, 0.0) + int(self_us) / 1e6
    ranked = sorted(per.items(), key=lambda item: -item[1])
    return sum(per.values()), ranked[:count]


def _median(values: list[float]) -> float:
    return statistics.median(values) * 1000


def _acp(root: Path, env: dict[str, str], report: Callable[[str], None]) -> dict[str, float]:
    ours, bare = [], []
    for _ in range(RUNS):
        bare.append(asyncio.run(acp_once([sys.executable, "-c", BARE_ACP], root, env)))
        karyi = [sys.executable, "-m", "karyi", "acp"]
        ours.append(asyncio.run(acp_once(karyi, root, env, opens=True)))
    init, new, again, opened = (_median([o[i] for o in ours]) for i in range(4))
    b_init, b_new = _median([b[0] for b in bare]), _median([b[1] for b in bare])
    report(
        f"karyi acp: spawn -> initialize {init:6.0f} ms (bare SDK agent {b_init:.0f} ms, "
        f"x{init / b_init:.2f}; target <= 500 ms)"
    )
    report(
        f"           session/new at once {new:6.0f} ms, again {again:.0f} ms (bare SDK agent "
        f"{b_new:.0f} ms; target <= 100 ms)"
    )
    report(f"           the first session's runtime open {opened:6.0f} ms after initialize")
    return {
        "acp_initialize_ms": init,
        "acp_session_new_ms": new,
        "acp_session_open_ms": opened,
        "acp_ratio": init / b_init,
    }


def _lsp(root: Path, report: Callable[[str], None]) -> dict[str, float]:
    async def once(argv: list[str]) -> float:
        client, took = await start(argv, root, {})
        await stop(client)
        return took

    ours, floor = [], []
    for _ in range(RUNS):
        floor.append(asyncio.run(once([sys.executable, "-c", EMPTY_SERVER])))
        ours.append(asyncio.run(once([sys.executable, "-m", "karyi", "lsp", "--stdio"])))
    mine, bare = _median(ours), _median(floor)
    report(
        f"karyi lsp: spawn -> initialize {mine:6.0f} ms (empty pygls server {bare:.0f} ms, "
        f"x{mine / bare:.2f}; target <= 300 ms)"
    )
    after = [asyncio.run(_lsp_after_initialized(root)) for _ in range(RUNS)]
    handled, hosted = (_median([a[i] for a in after]) for i in (0, 1))
    report(
        f"           initialized -> a didOpen handled {handled:6.1f} ms, "
        f"-> karyi/sessions answered {hosted:6.0f} ms (the host built)"
    )
    return {
        "lsp_initialize_ms": mine,
        "lsp_ratio": mine / bare,
        "lsp_notification_ms": handled,
        "lsp_host_ms": hosted,
    }


async def _lsp_after_initialized(root: Path) -> tuple[float, float]:
    """Seconds from `initialized` to a `didOpen` sent with it being handled (a request of
    no method sent after it is answered: the server reads its messages in order), and
    to the first request that needs the agent host answered."""
    client, _ = await start([sys.executable, "-m", "karyi", "lsp", "--stdio"], root, {})
    began = time.perf_counter()
    client.initialized(types.InitializedParams())
    item = types.TextDocumentItem((root / "README.md").as_uri(), "markdown", 1, "# Bench\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(item))
    with contextlib.suppress(JsonRpcMethodNotFound):
        await client.protocol.send_request_async("karyi/benchProbe", None)
    handled = time.perf_counter() - began
    await client.protocol.send_request_async("karyi/sessions", None)
    hosted = time.perf_counter() - began
    await stop(client)
    return handled, hosted


def _run(root: Path, env: dict[str, str], report: Callable[[str], None]) -> dict[str, float]:
    fake = FakeModelServer().start()
    try:
        env = {**env, "KARYI_BASE_URL": fake.openai_url}
        karyi = [sys.executable, "-m", "karyi", "run", "--workspace", str(root), "hi"]
        bare_argv = [sys.executable, "-c", BARE_RUN, fake.openai_url]
        ours, floor = [], []
        for _ in range(RUNS):
            fake.script("Done.", "Done.")
            floor.append(run_once(bare_argv, fake, env, root))
            ours.append(run_once(karyi, fake, env, root))
    finally:
        fake.stop()
    mine, bare = _median(ours), _median(floor)
    report(
        f"karyi run: spawn -> first model request {mine:6.0f} ms (bare openai SDK script "
        f"{bare:.0f} ms, x{mine / bare:.2f}; target <= 600 ms)"
    )
    return {"run_first_request_ms": mine, "run_ratio": mine / bare}


def compiled_bytecode() -> None:
    """Let the spawned processes read karyi's compiled bytecode, as an installed karyi
    does (pip compiles a wheel's modules when it installs it). Where
    PYTHONDONTWRITEBYTECODE is set (some CI and sandboxes), an editable karyi's own
    modules would be compiled again in every process, while the floors' SDKs read the
    bytecode pip wrote: a cost no user pays, most of a start-up on a loaded machine."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    package = Path(__file__).resolve().parents[1] / "server" / "karyi"
    if package.is_dir():
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(package)], check=True)


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns the medians (ms) and the ratios to the floors."""
    figures: dict[str, float] = {}
    compiled_bytecode()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "README.md").write_text("# Bench\n")
        fake = FakeModelServer().start()
        try:
            env = _env(root, fake)
            figures |= _acp(root, env, report)
        finally:
            fake.stop()
        figures |= _lsp(root, report)
        figures |= _run(root, env, report)
    for front, module in FRONT_ENDS.items():
        total, top = import_top(module)
        ranked = ", ".join(f"{name} {seconds * 1000:.0f}" for name, seconds in top)
        report(f"import {module} ({front}): {total * 1000:.0f} ms; top ten (ms): {ranked}")
    return figures


if __name__ == "__main__":
    main()
