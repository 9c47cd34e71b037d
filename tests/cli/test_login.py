"""`karyi login` on a real terminal (a pty): the key is asked with hidden input and kept
in the secret store under the provider's usual name, where Karyi then finds it; `karyi
logout` removes it again."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

from karyi.secrets.store import SecretStore


def _read_until(fd: int, marker: bytes) -> bytes:
    """What the terminal shows until `marker` (or the end of the program)."""
    seen = b""
    while marker not in seen:
        try:
            chunk = os.read(fd, 1024)
        except OSError:  # the program ended and closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    return seen


def test_login_asks_without_echo_and_keeps_the_key(tmp_path: Path, _isolated_config: Path) -> None:
    pid, fd = pty.fork()
    if pid == 0:  # the child: karyi login on the terminal
        os.chdir(tmp_path)
        os.environ["KARYI_CONFIG_DIR"] = str(_isolated_config)
        os.environ["KARYI_MODEL"] = "anthropic:claude-test"
        os.execv(sys.executable, [sys.executable, "-m", "karyi", "login"])
    asked = _read_until(fd, b"(input hidden): ")
    assert b"kept as ANTHROPIC_API_KEY" in asked
    os.write(fd, b"sk-ant-typed\n")
    rest = _read_until(fd, b"when the environment has no key.")
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    assert os.waitstatus_to_exitcode(status) == 0, rest
    assert b"sk-ant-typed" not in rest  # never echoed
    assert b"Stored ANTHROPIC_API_KEY" in rest
    store = SecretStore.default({"KARYI_CONFIG_DIR": str(_isolated_config)})
    assert store.get("ANTHROPIC_API_KEY") == "sk-ant-typed"


def test_logout_removes_what_login_kept(tmp_path: Path, _isolated_config: Path) -> None:
    store = SecretStore.default({"KARYI_CONFIG_DIR": str(_isolated_config)})
    store.set("ANTHROPIC_API_KEY", "sk-ant-typed")
    store.set("OPENAI_API_KEY", "sk-other")  # another provider's key stays
    env = {
        **os.environ,
        "KARYI_CONFIG_DIR": str(_isolated_config),
        "KARYI_MODEL": "anthropic:claude-test",
        "ANTHROPIC_API_KEY": "sk-from-env",
    }
    env.pop("KARYI_API_KEY", None)

    def logout() -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "karyi", "logout"]
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True)

    done = logout()
    assert done.returncode == 0, done.stderr
    assert "Removed ANTHROPIC_API_KEY from the keyring" in done.stdout
    assert "ANTHROPIC_API_KEY is still set in the environment" in done.stdout
    assert store.get("ANTHROPIC_API_KEY") is None and store.get("OPENAI_API_KEY") == "sk-other"
    again = logout()
    assert again.returncode == 1 and "no key for anthropic:claude-test was stored" in again.stderr
