"""`karyi exec` with commands and secrets: a real process, a real terminal where needed,
and no process left behind once it returns."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pexpect

from karyi.shell.procs import alive
from tests.support.procs import host_pid, marked

KARYI = [sys.executable, "-m", "karyi"]

DAEMON = """import os, time
if os.fork(): os._exit(0)
os.setsid()
if os.fork(): os._exit(0)
open('daemon.pid', 'w').write(str(os.getpid()))
time.sleep(300)
"""


def exec_(ws: Path, reply: str, cfg: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KARYI_CONFIG_DIR": str(cfg)}
    return subprocess.run(
        [*KARYI, "exec", "--workspace", str(ws), *flags, "-"],
        input=reply,
        capture_output=True,
        text=True,
        env=env,
        start_new_session=True,
        timeout=60,
    )


def test_no_process_outlives_karyi_exec(ws_root: Path, tmp_path: Path, mark: str) -> None:
    (ws_root / "daemon.py").write_text(DAEMON)
    reply = """<tools>
<command>
sh -c 'echo $$ > job.pid; exec sleep 300' &
python3 daemon.py
while [ ! -s daemon.pid ] || [ ! -s job.pid ]; do sleep 0.01; done
echo started
</command>
</tools>"""
    p = exec_(ws_root, reply, tmp_path, "--yes")
    assert p.returncode == 0, p.stderr
    assert "started" in p.stdout
    assert all((ws_root / f).read_text().strip().isdigit() for f in ("job.pid", "daemon.pid"))
    assert marked(mark) == []


def store_deploy_key(config_dir: Path) -> None:
    """`karyi var set DEPLOY_KEY` into the user store at `config_dir`, as a user would."""
    subprocess.run(
        [*KARYI, "var", "set", "DEPLOY_KEY"],
        input="dk-0123456789",
        text=True,
        env={**os.environ, "KARYI_CONFIG_DIR": str(config_dir)},
        check=True,
        capture_output=True,
        start_new_session=True,
    )


def test_secrets_from_the_store_are_used_and_redacted(ws_root: Path, tmp_path: Path) -> None:
    store_deploy_key(tmp_path)
    reply = (
        "<tools><command>echo key=$KARYI{DEPLOY_KEY}; printf %s $KARYI{DEPLOY_KEY} | base64"
        "</command></tools>"
    )
    p = exec_(ws_root, reply, tmp_path, "--yes", "--json")
    assert p.returncode == 0, p.stderr
    assert "dk-0123456789" not in p.stdout + p.stderr
    assert "key=$KARYI{DEPLOY_KEY}\\n$KARYI{DEPLOY_KEY}\\n" in p.stdout


LOUD = (
    "python3 -c 'import sys; w = sys.stdout.write\n"
    'for i in range(200_000): w(f"{i} \u00e9{chr(120) * (i % 7)} {sys.argv[1]}\\n")\' '
    "$KARYI{DEPLOY_KEY}"
)


def test_a_loud_command_keeps_every_line_and_no_secret(ws_root: Path, tmp_path: Path) -> None:
    """6 MB through the terminal: lines of every length put the secret across the
    terminal's reads and the output's batches; the file holds every line, redacted, and
    the result the head and the tail (issue [fast-paths])."""
    store_deploy_key(tmp_path)
    p = exec_(ws_root, f"<tools><command>{LOUD}</command></tools>", tmp_path, "--yes", "--json")
    assert p.returncode == 0, p.stderr
    [item] = json.loads(p.stdout)
    content = item["llm_content"]
    assert content.startswith("0 \u00e9 $KARYI{DEPLOY_KEY}\n1 \u00e9x $KARYI{DEPLOY_KEY}\n")
    assert "\n199999 \u00e9xx $KARYI{DEPLOY_KEY}\n" in content
    lines = (ws_root / item["data"]["output_file"]).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 200_000
    assert all(line.endswith(" $KARYI{DEPLOY_KEY}") for line in lines)
    assert lines[123_457] == "123457 \u00e9xxxxx $KARYI{DEPLOY_KEY}"
    assert "dk-0123456789" not in p.stdout + "".join(lines)


def test_get_value_without_a_terminal_is_refused_clearly(ws_root: Path, tmp_path: Path) -> None:
    reply = '<tools><get_value key="NPM_TOKEN" reason="publish"/></tools>'
    p = exec_(ws_root, reply, tmp_path, "--yes")
    assert p.returncode == 1
    assert "nobody can be asked for NPM_TOKEN here" in p.stdout


def test_get_value_on_a_terminal(ws_root: Path, tmp_path: Path) -> None:
    reply_file = tmp_path / "reply.xml"
    reply_file.write_text(
        '<tools><get_value key="NPM_TOKEN" reason="publish the package" note="npm"/></tools>'
    )
    env = {**os.environ, "KARYI_CONFIG_DIR": str(tmp_path / "cfg")}
    child = pexpect.spawn(
        KARYI[0],
        [*KARYI[1:], "exec", "--workspace", str(ws_root), "--yes", str(reply_file)],
        env=env,
        encoding="utf-8",
        timeout=30,
    )
    child.expect_exact("Reason: publish the package")
    child.expect_exact("NPM_TOKEN (input hidden, empty to refuse): ")
    child.sendline("npm-typed-secret-1")
    child.expect_exact("Save it for later sessions? [y/N] ")
    child.sendline("y")
    child.expect_exact("Note [npm]: ")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    out = child.before or ""
    assert child.exitstatus == 0, out
    assert "npm-typed-secret-1" not in out
    assert "$KARYI{NPM_TOKEN} is ready (saved for later sessions (file))" in out
    listed = subprocess.run(
        [*KARYI, "var", "list"], env=env, capture_output=True, text=True, check=True
    )
    assert listed.stdout == "NPM_TOKEN  [file]  npm\n"


def test_a_terminated_karyi_exec_leaves_no_process(
    ws_root: Path, tmp_path: Path, mark: str
) -> None:
    os.mkfifo(ws_root / "ready")
    reply = tmp_path / "reply.xml"
    reply.write_text("<tools><command>sh -c 'echo $$ > ready; exec sleep 300'</command></tools>")
    proc = subprocess.Popen(
        [*KARYI, "exec", "--workspace", str(ws_root), "--yes", str(reply)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "KARYI_CONFIG_DIR": str(tmp_path)},
        start_new_session=True,
    )
    with open(ws_root / "ready") as ready:  # blocks until the command has started
        pid = host_pid(int(ready.read()), mark)
    assert pid is not None and alive(pid)
    proc.terminate()
    proc.communicate(timeout=30)
    assert proc.returncode == 128 + 15
    assert not alive(pid) and marked(mark) == []


def test_a_program_that_forgets_to_close_its_manager_leaves_no_process(
    ws_root: Path, mark: str
) -> None:
    script = f"""
import asyncio
from karyi.settings import Settings
from karyi.shell.manager import ShellManager
from karyi.workspace.workspace import Workspace

async def main():
    m = ShellManager(Workspace.open({str(ws_root)!r}), Settings())
    r = await m.command("s", "sleep 300 & echo $!")
    print(r.output.text.split()[-1], flush=True)

asyncio.run(main())
"""
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.split()[-1].isdigit()
    assert marked(mark) == []
