"""The gateway's security boundary over HTTP: the one path policy decides every path.

With `allowedRoots: ["/"]` every path is inside an allowed root, so these tests show
the system-directory blacklist still wins, as written and after symlinks resolve.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from karyi.workspace.paths import SYSTEM_DIRS
from tests.gateway.conftest import Make, Rig


@pytest.fixture
def open_rig(make: Make) -> Rig:
    """Every path on the machine is in an allowed root; the shell is enabled."""
    return make(allowedRoots=["/"], gateway={"enableShell": True})


@pytest.mark.parametrize("directory", SYSTEM_DIRS)
async def test_every_system_directory_is_refused(open_rig: Rig, directory: str) -> None:
    for path in (directory, f"{directory}/karyi-probe", f"/tmp/../{directory[1:]}/x"):
        r = await open_rig.tool("read_file", {"path": path})
        assert r.status_code == 403, path
        error = r.json()["error"]
        assert error["code"] == "tool_forbidden_path"
        assert "protected system directory" in error["message"]


@pytest.mark.parametrize("directory", SYSTEM_DIRS)
async def test_nothing_is_written_into_a_system_directory(open_rig: Rig, directory: str) -> None:
    target = f"{directory}/karyi-gateway-probe.txt"
    r = await open_rig.tool("create_file", {"path": target, "content": "x"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "tool_forbidden_path")
    assert not os.path.lexists(target)


@pytest.mark.parametrize("directory", SYSTEM_DIRS)
async def test_a_symlink_into_a_system_directory_is_refused(
    open_rig: Rig, ws_root: Path, directory: str
) -> None:
    (ws_root / "into").symlink_to(directory)
    r = await open_rig.tool("read_file", {"path": "into/anything"})
    assert r.status_code == 403
    assert "a symlink leads to" in r.json()["error"]["message"]
    r = await open_rig.tool("create_file", {"path": "into/new.txt", "content": "x"})
    assert r.status_code == 403


async def test_a_symlink_to_a_system_file_is_refused(open_rig: Rig, ws_root: Path) -> None:
    (ws_root / "hosts").symlink_to("/etc/hosts")
    r = await open_rig.tool("read_file", {"path": "hosts"})
    assert r.json()["error"] == {
        "code": "tool_forbidden_path",
        "message": "path 'hosts': a symlink leads to /etc/hosts, inside the protected system "
        "directory /etc",
    }
    r = await open_rig.tool("update_file", {"path": "hosts", "content": "x", "mode": "append"})
    assert r.status_code == 403


async def test_a_shell_cwd_in_a_system_directory_is_refused(open_rig: Rig) -> None:
    r = await open_rig.tool("shell", {"command": "pwd", "cwd": "/usr/bin"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "tool_forbidden_path")


async def test_other_paths_in_an_allowed_root_are_readable(open_rig: Rig, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("fine\n")
    r = await open_rig.tool("read_file", {"path": str(outside)})
    assert (r.status_code, r.json()["content"]) == (200, "fine\n")


@pytest.mark.parametrize(
    "path",
    ["../../../../../../etc/passwd", "//etc/passwd", "/./etc/passwd", "/tmp/../etc/passwd"],
)
async def test_spellings_of_a_system_path_are_refused(open_rig: Rig, path: str) -> None:
    r = await open_rig.tool("read_file", {"path": path})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "tool_forbidden_path")


async def test_dot_dot_out_of_the_workspace_is_refused(rig: Rig) -> None:
    r = await rig.tool("read_file", {"path": "src/../../secret.txt"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "tool_forbidden_path")
    inside = await rig.tool("read_file", {"path": "src/../README.md"})
    assert inside.status_code == 200


async def test_a_symlink_out_of_the_workspace_is_refused(
    rig: Rig, ws_root: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    (ws_root / "escape").symlink_to(tmp_path / "secret.txt")
    r = await rig.tool("read_file", {"path": "escape"})
    assert (r.status_code, r.json()["error"]["code"]) == (403, "tool_forbidden_path")
    assert "secret" not in r.json()["error"]["message"].replace("secret.txt", "")


async def test_nul_bytes_in_a_path_are_invalid_input(open_rig: Rig) -> None:
    r = await open_rig.tool("read_file", {"path": "README.md\u0000/etc/passwd"})
    assert r.json()["error"] == {
        "code": "invalid_tool_input",
        "message": "path: a path cannot contain NUL",
    }
    assert r.status_code == 400


@pytest.mark.parametrize(
    "path", ["%2e%2e/%2e%2e/etc/passwd", "%2Fetc%2Fpasswd", "..%2f..%2fetc%2fpasswd"]
)
async def test_url_encodings_are_refused_not_decoded(rig: Rig, path: str) -> None:
    """A percent-encoded dot or separator is neither decoded nor taken as a name."""
    r = await rig.tool("read_file", {"path": path})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid_tool_input")
    assert "percent-encoding is not decoded in paths" in r.json()["error"]["message"]


async def test_an_encoded_name_is_refused_and_nothing_is_created(rig: Rig, ws_root: Path) -> None:
    r = await rig.tool("create_file", {"path": "%2e%2e", "content": "x"})
    assert (r.status_code, r.json()["error"]["code"]) == (400, "invalid_tool_input")
    assert not (ws_root / "%2e%2e").exists()
