"""The command sandbox, for real: bwrap, a pty bash, real files and a real TCP server.

The command rules are set to allow everything here on purpose: what stops these
commands is the sandbox alone.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from karyi.core.results import Permission
from karyi.settings import DEFAULTS, Settings, load_settings
from karyi.shell.manager import ShellManager
from karyi.shell.sandbox import SandboxPlan, bwrap_argv, check_bwrap, probe, secret_paths
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.waiting import eventually

pytestmark = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")
S = "s1"


def sandbox_settings(**sandbox: Any) -> Settings:
    """Defaults, every command allowed by the rules, `shell.sandbox.*` changed."""
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["inactivitySeconds"] = 30
    values["shell"]["sandbox"].update(sandbox)
    values["permissions"]["commands"]["allow"] = ["*"]
    return Settings(values)


@pytest.fixture
def home(ws_root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake HOME inside the workspace, with a private key and a .netrc."""
    home = ws_root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".netrc").write_text("machine example.com password hunter2\n")
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
async def sandboxed(ws_root: Path, home: Path) -> AsyncIterator[ShellManager]:
    """A manager with the sandbox on (the default `auto`)."""
    m = ShellManager(Workspace.open(ws_root), sandbox_settings())
    yield m
    await m.close()


async def _run_both(m: ShellManager, script: str) -> list[tuple[int | None, str]]:
    """`script` in the terminal and as a one-shot: (exit code, output) each."""
    t = await m.command(S, script)
    o = await m.oneshot(S, script)
    return [(t.exit_code, t.output.text), (o.outcome.exit_code, o.output.text)]


# -- the argv ------------------------------------------------------------------------------


def test_argv_orders_mounts_so_the_workspace_and_hiding_win(tmp_path: Path) -> None:
    ws, tmp, key = tmp_path / "ws", tmp_path / "priv", tmp_path / "ws" / "home" / ".ssh"
    key.mkdir(parents=True)
    plan = SandboxPlan(writable=(ws,), scratch=tmp, hidden=(key,))
    argv = bwrap_argv("bwrap", plan, ws, new_session=False)
    assert argv == [
        "bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--bind", str(tmp / "tmp"), "/tmp", "--bind", str(ws), str(ws), "--tmpfs", str(key),
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
        "--unshare-net", "--die-with-parent", "--chdir", str(ws), "--",
    ]  # fmt: skip


def test_argv_network_session_files_and_hidden_roots(tmp_path: Path) -> None:
    netrc = Path("/etc/hostname")  # any existing file stands in for one
    holder = tmp_path / "holder"
    (holder / "ws").mkdir(parents=True)
    plan = SandboxPlan((holder / "ws",), tmp_path, (netrc, holder), network=True)
    argv = bwrap_argv("bwrap", plan, tmp_path, new_session=True)
    assert "--unshare-net" not in argv and argv[-2:] == ["--new-session", "--"]
    assert ["--ro-bind", str(tmp_path / "empty"), str(netrc)] == argv[argv.index(str(netrc)) - 2 :][
        :3
    ]
    assert str(holder) not in argv[argv.index("--die-with-parent") - 2 :]  # holds the ws


def test_a_bwrap_that_fails_is_reported_with_its_words(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    said = check_bwrap(str(fake))
    assert said is not None and "exit 1" in said and "new namespace" in said
    assert check_bwrap(str(tmp_path / "missing")) is not None


def test_secret_paths_are_the_existing_ones(home: Path) -> None:
    assert secret_paths(home) == [home / ".ssh", home / ".netrc"]


# -- what a sandboxed command cannot do --------------------------------------------------


async def test_writes_outside_the_workspace_fail(sandboxed: ShellManager, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    for code, text in await _run_both(sandboxed, f"echo x > {outside}; echo y > /etc/karyi-x"):
        assert code != 0 and "Read-only file system" in text
    assert not outside.exists() and not Path("/etc/karyi-x").exists()


async def test_credentials_are_hidden(sandboxed: ShellManager, home: Path) -> None:
    script = "cat ~/.ssh/id_rsa; cat ~/.netrc; ls -A ~/.ssh; echo end"
    for _code, text in await _run_both(sandboxed, script):
        assert "PRIVATE KEY" not in text and "hunter2" not in text
        assert "id_rsa" in text and text.endswith("end\n")  # the error names it, ls none
    assert (home / ".ssh" / "id_rsa").read_text() == "PRIVATE KEY\n"


async def test_karyi_config_dir_is_hidden(
    ws_root: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = home / ".config" / "karyi"
    conf.mkdir(parents=True)
    (conf / "secrets.json").write_text('{"TOKEN": "s3cr3t-value"}')
    monkeypatch.setenv("KARYI_CONFIG_DIR", str(conf))
    m = ShellManager(Workspace.open(ws_root), sandbox_settings())
    try:
        o = await m.oneshot(S, f"cat {conf}/secrets.json; ls -A {conf}")
        assert "s3cr3t" not in o.output.text and o.sandboxed
    finally:
        await m.close()


async def _server() -> tuple[asyncio.Server, int, list[bytes]]:
    got: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        got.append(await reader.read(100))
        writer.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], got


def _connect(port: int) -> str:
    return (
        "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', "
        f"{port}), timeout=5); s.sendall(b'hello'); s.close(); print('sent')\""
    )


async def test_no_network_by_default(sandboxed: ShellManager) -> None:
    server, port, got = await _server()
    async with server:
        for code, text in await _run_both(sandboxed, _connect(port)):
            assert code != 0 and "sent" not in text
            assert "ConnectionRefused" in text or "unreachable" in text
    assert got == []


async def test_network_when_the_user_allows_it(ws_root: Path, home: Path) -> None:
    m = ShellManager(Workspace.open(ws_root), sandbox_settings(network=True))
    server, port, got = await _server()
    try:
        async with server:
            o = await m.oneshot(S, _connect(port))
            await eventually(lambda: got, "the server receives the bytes")
        assert (o.outcome.exit_code, o.sandboxed) == (0, True) and got == [b"hello"]
    finally:
        await m.close()


# -- what must keep working --------------------------------------------------------------


async def test_a_development_loop_works(sandboxed: ShellManager) -> None:
    (sandboxed.workspace.root / "test_app.py").write_text("assert 1 + 1 == 2\nprint('ok')\n")
    script = (
        "git init -q . && git add -A &&\n"
        "git -c user.name=K -c user.email=k@example.com commit -qm first &&\n"
        "git log --oneline | wc -l && python3 test_app.py &&\n"
        "mkdir -p dist && python3 -c \"open('dist/app.bin', 'w').write('built')\" &&\n"
        "echo scratch > $TMPDIR/x && cat $TMPDIR/x"
    )
    r = await sandboxed.command(S, script)
    assert (r.state, r.exit_code, r.output.text) == ("done", 0, "1\nok\nscratch\n"), r.output.text
    assert (sandboxed.workspace.root / "dist" / "app.bin").read_text() == "built"
    assert sandboxed.terminal_sandboxed(S)
    r = await sandboxed.command(S, "seq 1 20000")  # long output: kept whole in its log
    assert r.output.path and r.output.omitted_lines
    assert Path(sandboxed.workspace.root, r.output.path).read_text().endswith("\n20000\n")


async def test_state_persists_and_ctrl_c_still_interrupts(sandboxed: ShellManager) -> None:
    r = await sandboxed.command(S, "cd src && export GREETING=hi")
    assert (r.exit_code, r.cwd) == (0, "src")
    r = await sandboxed.command(S, 'echo "$GREETING $PWD"')
    assert r.output.text == f"hi {sandboxed.workspace.root}/src\n"
    shell = {**sandboxed.settings.values["shell"], "inactivitySeconds": 0.5}
    sandboxed.settings = sandboxed.settings.with_values(shell=shell)
    r = await sandboxed.command(S, "echo start; sleep 30")
    assert r.state == "running"
    r = await sandboxed.send(S, b"\x03")
    assert (r.state, r.exit_code) == ("done", 130)


async def test_private_tmp_persists_in_the_session_and_goes_with_it(
    sandboxed: ShellManager,
) -> None:
    await sandboxed.oneshot(S, "echo kept > /tmp/note")
    o = await sandboxed.oneshot(S, "cat /tmp/note; echo $TMPDIR")
    assert o.output.text == "kept\n/tmp\n"
    private = sandboxed._sessions[S].scratch
    assert private is not None and (private / "tmp" / "note").is_file()
    await sandboxed.close(S)
    assert not private.exists()


async def test_off_runs_plainly(ws_root: Path, tmp_path: Path) -> None:
    m = ShellManager(Workspace.open(ws_root), sandbox_settings(mode="off"))
    try:
        o = await m.oneshot(S, f"echo x > {tmp_path}/plain.txt")
        assert (o.outcome.exit_code, o.sandboxed) == (0, False)
        assert (tmp_path / "plain.txt").is_file() and m.sandbox_notice() is None
    finally:
        await m.close()


async def test_extra_writable_paths(ws_root: Path, home: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    m = ShellManager(Workspace.open(ws_root), sandbox_settings(writable=[str(cache)]))
    try:
        o = await m.oneshot(S, f"echo x > {cache}/f")
        assert o.outcome.exit_code == 0 and (cache / "f").is_file()
    finally:
        await m.close()


async def test_run_command_with_allow_all_rules_is_still_confined(
    ws_root: Path, home: Path
) -> None:
    from karyi.tools.builtin.commands.oneshot import RunCommand

    m = ShellManager(Workspace.open(ws_root), sandbox_settings())
    ctx = ToolContext(workspace=m.workspace, settings=m.settings, shell=m)
    tool, params = RunCommand(), {"command": "cat ~/.ssh/id_rsa; touch /usr/x"}
    try:
        verdict = tool.permission_for(params, ctx)
        assert verdict is not None and verdict.permission is Permission.AUTO
        result = await tool.execute(params, ctx)
        assert "PRIVATE KEY" not in result.llm_content
        assert "Read-only file system" in result.llm_content
    finally:
        await m.close()


# -- settings --------------------------------------------------------------------------


def test_a_workspace_may_only_tighten_the_sandbox(tmp_path: Path) -> None:
    ws = tmp_path / "repo"
    (ws / ".karyi").mkdir(parents=True)
    looser = {"mode": "off", "network": True, "writable": ["/"], "autoApprove": True}
    (ws / ".karyi" / "settings.json").write_text(json.dumps({"shell": {"sandbox": looser}}))
    s = load_settings(ws, user_file=tmp_path / "none.json", env={})
    assert (s.shell.sandbox.mode, s.shell.sandbox.network, s.sandbox_writable) == (
        "auto",
        False,
        [],
    )
    keys = {w.key for w in s.warnings}
    assert {f"shell.sandbox.{k}" for k in looser} <= keys
    tighter = {"mode": "on", "network": False, "autoApprove": False}
    (ws / ".karyi" / "settings.json").write_text(json.dumps({"shell": {"sandbox": tighter}}))
    s = load_settings(ws, user_file=tmp_path / "none.json", env={})
    assert (s.shell.sandbox.mode, s.shell.sandbox.network, s.shell.sandbox.auto_approve) == (
        "on",
        False,
        False,
    )
    assert not s.warnings


def test_bad_sandbox_values_are_reported(tmp_path: Path) -> None:
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"shell": {"sandbox": {"mode": "maybe"}}}))
    s = load_settings(None, user_file=user, env={})
    assert s.shell.sandbox.mode == "auto" and any("maybe" in str(w) for w in s.warnings)
    assert os.path.isabs(Settings().values["shell"]["sandbox"]["mode"]) is False


# -- the model's view, approvals ---------------------------------------------------------


async def test_a_failure_the_sandbox_caused_is_said_plainly(sandboxed: ShellManager) -> None:
    from karyi.tools.builtin.commands.oneshot import RunCommand
    from karyi.tools.builtin.commands.terminal import Command

    ctx = ToolContext(workspace=sandboxed.workspace, settings=sandboxed.settings, shell=sandboxed)
    unreachable = "python3 -c \"import socket; socket.create_connection(('192.0.2.1', 80))\""
    for tool in (RunCommand(), Command()):
        r = await tool.execute({"command": "touch /usr/karyi-x"}, ctx)
        assert "the sandbox made that write fail" in r.llm_content
        assert "`sandbox: false`" in r.llm_content and r.metadata["sandboxed"] is True
        r = await tool.execute({"command": unreachable}, ctx)
        assert "sandboxed commands have no network" in r.llm_content
    r = await RunCommand().execute({"command": "exit 3"}, ctx)
    assert "sandbox" not in r.llm_content


def _ctx(m: ShellManager, **changes: Any) -> ToolContext:
    return ToolContext(workspace=m.workspace, settings=m.settings.with_values(**changes), shell=m)


async def test_sandboxed_commands_run_without_asking_unless_a_rule_says_otherwise(
    ws_root: Path, home: Path
) -> None:
    from karyi.tools.builtin.commands.terminal import Command

    values = copy.deepcopy(DEFAULTS)
    m = ShellManager(Workspace.open(ws_root), Settings(values))
    rules = {"tools": {}, "commands": {"allow": [], "deny": ["rm *"], "confirm": ["git push *"]}}
    ctx, tool = _ctx(m, permissions=rules), Command()

    def verdict(command: str, **extra: Any) -> Permission | None:
        found = tool.permission_for({"command": command, **extra}, ctx)
        return found.permission if found is not None else None

    try:
        assert verdict("make build") is Permission.AUTO
        assert verdict("rm -rf build") is Permission.DENY
        assert verdict("git push origin") is Permission.CONFIRM
        assert verdict("make build", sandbox=False) is Permission.CONFIRM
        assert verdict("rm -rf build", sandbox=False) is Permission.DENY
        conf = tool.confirmation({"command": "make", "sandbox": False}, ctx)
        assert conf is not None and not conf.sandboxed and not conf.always
        assert "NOT sandboxed" in conf.title
        sandbox = {**DEFAULTS["shell"]["sandbox"], "autoApprove": False}
        ctx = _ctx(m, permissions=rules, shell={**DEFAULTS["shell"], "sandbox": sandbox})
        assert verdict("make build") is None
        ctx = _ctx(m, permissions={**rules, "tools": {"command": "confirm"}})
        assert verdict("make build") is None
    finally:
        await m.close()


async def test_leaving_the_sandbox_is_asked_every_time(ws_root: Path, home: Path) -> None:
    from karyi.agent.events import ToolDone
    from karyi.agent.review.approval import ApprovalRequest, Decision
    from tests.support.harness import Harness

    m = ShellManager(Workspace.open(ws_root), sandbox_settings())  # allow: ["*"]
    ctx = ToolContext(workspace=m.workspace, settings=m.settings, shell=m)
    asked: list[bool | None] = []

    async def approver(req: ApprovalRequest) -> Decision:
        asked.append(req.confirmation.sandboxed if req.confirmation else None)
        return Decision(True, remember="session")

    call = (
        '<tools><command sandbox="false">touch /tmp/karyi-outside-$PPID; echo ok</command></tools>'
    )
    inside = "<tools><command>echo in</command></tools>"
    h = Harness(ctx, [call, "done", call, "done", inside, "done"], approver=approver)
    try:
        for _ in range(3):
            await h.agent.run("go")
        assert asked == [False, False]
        results = [c for c in h.store.calls(h.conv.id)]
        assert [c.decision for c in results] == ["allowed", "allowed", "auto"]
        done = [e.result for e in h.events if isinstance(e, ToolDone)]
        assert [r.metadata["sandboxed"] for r in done] == [False, False, True]
        assert "ran outside the sandbox" in done[0].llm_content
        assert done[0].to_dict()["metadata"]["sandboxed"] is False  # LSP, gateway
    finally:
        await m.close()


async def test_allowed_roots_are_writable_but_never_a_system_directory(
    ws_root: Path, tmp_path: Path
) -> None:
    other = tmp_path / "sibling"
    other.mkdir()
    m = ShellManager(Workspace.open(ws_root, [str(other), "/", "/usr/lib"]), sandbox_settings())
    try:
        assert m._writable_roots() == [ws_root.resolve(), other.resolve()]
        o = await m.oneshot(S, f"echo x > {other}/f && touch /usr/lib/karyi-x")
        assert (other / "f").is_file() and "Read-only file system" in o.output.text
    finally:
        await m.close()


async def test_no_process_outside_is_visible(sandboxed: ShellManager, tmp_path: Path) -> None:
    """Through `/proc/PID/root` a process outside would lend its filesystem, writable."""
    outside = tmp_path / "escaped.txt"
    script = (
        f"for p in /proc/[0-9]*; do echo x > $p/root{outside} 2>/dev/null; done; "
        f"test -e /proc/{os.getpid()} && echo SEES-KARYI; echo end"
    )
    for _code, text in await _run_both(sandboxed, script):
        assert "SEES-KARYI" not in text and text.endswith("end\n")
    assert not outside.exists()


async def test_service_sockets_and_the_runtime_folder_are_hidden(
    ws_root: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session bus or a Docker socket would run commands outside the sandbox."""
    import socket

    runtime = ws_root / "run"  # visible to the sandbox unless hidden (tmp_path is not)
    runtime.mkdir(mode=0o700)
    bus = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bus.bind(str(runtime / "bus"))
    bus.listen(1)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    m = ShellManager(Workspace.open(ws_root), sandbox_settings())
    try:
        connect = (
            "python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); "
            'print("CONNECTED" if s.connect_ex(sys.argv[1]) == 0 else "refused")\' '
        )
        for code, text in await _run_both(m, connect + str(runtime / "bus")):
            assert code == 0 and "refused" in text and "CONNECTED" not in text
    finally:
        await m.close()
        bus.close()


def test_sockets_under_run_are_found(tmp_path: Path) -> None:
    import socket

    from karyi.shell.sandbox import service_sockets

    (tmp_path / "a" / "b").mkdir(parents=True)
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(tmp_path / "a" / "b" / "docker.sock"))
    (tmp_path / "a" / "plain").write_text("x")
    try:
        assert service_sockets([str(tmp_path)]) == [tmp_path / "a" / "b" / "docker.sock"]
    finally:
        s.close()


async def test_what_runs_later_outside_stays_read_only(ws_root: Path, home: Path) -> None:
    """`.git/config` (the editor's git runs core.fsmonitor), `.git/hooks` and `.karyi/`
    (a trusted workspace's settings start programs; the checkpoints' git config)."""
    (ws_root / ".git" / "hooks").mkdir(parents=True)
    (ws_root / ".git" / "config").write_text("[core]\n")
    m = ShellManager(Workspace.open(ws_root), sandbox_settings())
    try:
        script = (
            "printf '[core]\\nfsmonitor = touch pwned\\n' > .git/config; "
            "echo 'touch pwned' > .git/hooks/pre-commit; "
            "mkdir -p .karyi/checkpoints.git; echo '{}' > .karyi/settings.json; "
            "echo ok > src.txt && echo wrote"
        )
        for code, text in await _run_both(m, script):
            assert code == 0 and text.count("Read-only file system") == 4, text
            assert text.endswith("wrote\n")
        assert (ws_root / ".git" / "config").read_text() == "[core]\n"
        assert not (ws_root / ".git" / "hooks" / "pre-commit").exists()
        assert not (ws_root / ".karyi" / "settings.json").exists()
        assert (ws_root / "src.txt").read_text() == "ok\n"
    finally:
        await m.close()
