"""Disks that refuse writes, for the fault suite: a file-size limit of zero (works on
any Linux, root or not) and a small full tmpfs (where this machine lets us mount one)."""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest


def no_writes() -> None:
    """`preexec_fn`: every write past a file's current end fails with EFBIG."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


def karyi(
    root: Path, *args: str, limit: bool = False, model_url: str = "http://127.0.0.1:9/v1"
) -> subprocess.CompletedProcess[str]:
    """Run the real `karyi` command line in `root` against the model at `model_url`
    (by default one that is never reached)."""
    env = {
        **os.environ,
        "OPENAI_API_KEY": "sk-test",
        "KARYI_BASE_URL": model_url,
    }
    return subprocess.run(
        [sys.executable, "-m", "karyi", *args],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        preexec_fn=no_writes if limit else None,
        timeout=120,
    )


def fill(root: Path) -> None:
    """Write into `root` until its disk has no byte left."""
    fd = os.open(root / "filler", os.O_WRONLY | os.O_CREAT)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    assert shutil.disk_usage(root).free == 0


@contextlib.contextmanager
def full_tmpfs(base: Path) -> Iterator[Path]:
    """A 256 KiB tmpfs at `base/disk`, to be filled by the test; skipped where mounting
    is not allowed (not root, or a container without CAP_SYS_ADMIN)."""
    mount = base / "disk"
    mount.mkdir()
    tried = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if tried.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({tried.stderr.strip()}): RLIMIT_FSIZE covers it")
    try:
        yield mount
    finally:
        done = subprocess.run(["umount", str(mount)], capture_output=True, check=False)
        if done.returncode != 0:  # still busy (a server's last file): detach it now
            subprocess.run(["umount", "--lazy", str(mount)], capture_output=True, check=False)
