"""The network allowlist: sandboxed commands reach allowed host names through Karyi's
proxy, and nothing else (a server of the test's own on the loopback, nothing more)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from karyi.settings import DEFAULTS, Settings
from karyi.shell.manager import ShellManager
from karyi.shell.netproxy import DomainPolicy, domain_matches
from karyi.shell.sandbox import probe
from karyi.workspace.workspace import Workspace

S = "s1"
needs_sandbox = pytest.mark.skipif(probe() is not None, reason=f"no sandbox here: {probe()}")


def _settings(**sandbox: Any) -> Settings:
    values = copy.deepcopy(DEFAULTS)
    values["shell"]["sandbox"].update(sandbox)
    values["permissions"]["commands"]["allow"] = ["*"]
    return Settings(values)


def test_domains_and_wildcards() -> None:
    assert domain_matches("api.example.com", "*.example.com")
    assert domain_matches("a.b.Example.com.", "*.example.com")
    assert not domain_matches("example.com", "*.example.com")
    assert not domain_matches("badexample.com", "*.example.com")
    policy = DomainPolicy(("*.example.com", "pypi.org"), ("evil.example.com",))
    assert policy.refusal("files.example.com") is None and policy.refusal("pypi.org") is None
    assert policy.refusal("evil.example.com") == "in shell.sandbox.deniedDomains"
    assert policy.refusal("github.com") == "not in shell.sandbox.allowedDomains"


def _get(url: str) -> str:
    return (
        'python3 -c "import sys, urllib.request as u\n'
        f"try: print(u.urlopen('{url}', timeout=10).read().decode())\n"
        "except Exception as e: print('failed:', e); sys.exit(3)\""
    )


def _tunnel(port: int) -> str:
    return (
        'python3 -c "import os, http.client as h\n'
        "p = os.environ['HTTPS_PROXY'].rsplit(':', 1)\n"
        "c = h.HTTPConnection('127.0.0.1', int(p[1]), timeout=10)\n"
        f"c.set_tunnel('localhost', {port}); c.request('GET', '/')\n"
        'print(c.getresponse().read().decode())"'
    )


@needs_sandbox
async def test_an_allowed_host_is_reached_and_another_is_not(
    ws_root: Path, web: tuple[int, list[str]]
) -> None:
    port, hosts = web
    m = ShellManager(Workspace.open(ws_root), _settings(allowedDomains=["localhost"]))
    try:
        o = await m.oneshot(S, _get(f"http://localhost:{port}/"))
        assert (o.outcome.exit_code, o.sandboxed) == (0, True), o.output.text
        assert f"hello localhost:{port}" in o.output.text
        o = await m.oneshot(S, _tunnel(port))  # HTTPS goes the same way: CONNECT
        assert o.outcome.exit_code == 0 and f"hello localhost:{port}" in o.output.text
        o = await m.oneshot(S, _get(f"http://127.0.0.1:{port}/"))
        assert o.outcome.exit_code == 3 and "403" in o.output.text
        assert f"Karyi's sandbox proxy blocked 127.0.0.1:{port}" in o.output.text
        assert hosts == [f"localhost:{port}", f"localhost:{port}"]
        t = await m.command(S, _get(f"http://127.0.0.1:{port}/x"))  # the terminal too
        assert any(f"blocked 127.0.0.1:{port}" in n for n in t.notes)
        t = await m.command(S, _get(f"http://localhost:{port}/"))
        assert t.exit_code == 0 and not t.notes and len(hosts) == 3
    finally:
        await m.close()


@needs_sandbox
async def test_without_a_list_there_is_still_no_network(
    ws_root: Path, web: tuple[int, list[str]]
) -> None:
    port, hosts = web
    m = ShellManager(Workspace.open(ws_root), _settings())
    try:
        o = await m.oneshot(S, _get(f"http://localhost:{port}/"))
        assert o.outcome.exit_code == 3 and hosts == []
    finally:
        await m.close()


def test_the_permission_card_lists_the_domains_and_a_managed_sandbox_stays_on(
    ws_root: Path, tmp_path: Path
) -> None:
    import json

    from karyi.core.results import Permission
    from karyi.settings import load_settings
    from karyi.tools.builtin.commands.oneshot import RunCommand
    from karyi.tools.context import ToolContext

    managed = tmp_path / "managed.json"
    managed.write_text(json.dumps({"shell": {"sandbox": {"mode": "on"}}}))
    user = tmp_path / "user.json"
    user.write_text(json.dumps({"shell": {"sandbox": {"allowedDomains": ["pypi.org"]}}}))
    settings = load_settings(None, user_file=user, managed_file=managed, env={})
    m = ShellManager(Workspace.open(ws_root), settings)
    ctx = ToolContext(workspace=m.workspace, settings=settings, shell=m)
    tool = RunCommand()
    if m.sandboxed:
        card = tool.confirmation({"command": "pip download x"}, ctx)
        assert card is not None and "network only to pypi.org" in card.title
    verdict = tool.permission_for({"command": "ls", "sandbox": False}, ctx)
    assert verdict is not None and verdict.permission is Permission.DENY
    assert "refused by your organisation's settings (shell.sandbox.mode" in verdict.reason
