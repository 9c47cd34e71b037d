"""`karyi var` as a user runs it: a real process, a real config dir, a real terminal."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pexpect

KARYI = [sys.executable, "-m", "karyi"]


def var(
    config: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "KARYI_CONFIG_DIR": str(config), **env}
    full_env.pop("KARYI_AGENT_SHELL", None)
    full_env.update(env)
    return subprocess.run(
        [*KARYI, "var", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=full_env,
        start_new_session=True,  # no controlling terminal, as in CI
        timeout=60,
    )


def test_set_list_get_rm_without_a_terminal(tmp_path: Path) -> None:
    cfg = tmp_path / "cfg"
    p = var(cfg, "set", "API_TOKEN", "--note", "the API", stdin="tok-value-123\n")
    assert p.returncode == 0, p.stderr
    assert (
        p.stdout
        == f"stored API_TOKEN in {cfg}/secrets.json (mode 0600); use it as $KARYI{{API_TOKEN}}\n"
    )
    secrets = cfg / "secrets.json"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert json.loads(secrets.read_text())["variables"]["API_TOKEN"]["value"] == "tok-value-123"

    p = var(cfg, "list")
    assert p.stdout == "API_TOKEN  [file]  the API\n" and "tok-value" not in p.stdout

    p = var(cfg, "get", "API_TOKEN")
    assert p.returncode == 2 and p.stdout == ""
    assert "stdout is not a terminal; pass --pipe" in p.stderr
    p = var(cfg, "get", "--pipe", "API_TOKEN")
    assert (p.returncode, p.stdout) == (0, "tok-value-123\n")

    assert var(cfg, "rm", "API_TOKEN").stdout == "removed API_TOKEN\n"
    p = var(cfg, "rm", "API_TOKEN")
    assert p.returncode == 1 and "no secure variable API_TOKEN" in p.stderr
    assert var(cfg, "list").stdout == "(no secure variables)\n"


def test_a_value_is_never_taken_from_the_command_line(tmp_path: Path) -> None:
    p = var(tmp_path, "set", "X_TOKEN", "the-value")
    assert p.returncode == 2 and "unrecognized arguments: the-value" in p.stderr
    assert not (tmp_path / "secrets.json").exists()


def test_bad_names_and_agent_shells_are_refused(tmp_path: Path) -> None:
    p = var(tmp_path, "set", "1BAD", stdin="v")
    assert p.returncode == 2 and "invalid variable name '1BAD'" in p.stderr
    p = var(tmp_path, "get", "--pipe", "X", KARYI_AGENT_SHELL="1")
    assert p.returncode == 2 and "not available inside a shell the agent runs" in p.stderr


def test_set_on_a_terminal_asks_twice_without_echo(tmp_path: Path) -> None:
    env = {**os.environ, "KARYI_CONFIG_DIR": str(tmp_path)}
    env.pop("KARYI_AGENT_SHELL", None)
    child = pexpect.spawn(
        KARYI[0], [*KARYI[1:], "var", "set", "GH_TOKEN"], env=env, encoding="utf-8", timeout=30
    )
    child.expect_exact("Value for GH_TOKEN (input hidden): ")
    child.sendline("ghp-typed-secret")
    child.expect_exact("Again, to confirm: ")
    child.sendline("ghp-typed-secret")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "ghp-typed-secret" not in (child.before or "")
    assert "stored GH_TOKEN" in (child.before or "")
    assert var(tmp_path, "get", "--pipe", "GH_TOKEN").stdout == "ghp-typed-secret\n"
