"""The path policy: every rule refuses with its own precise error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from karyi.core.errors import ErrorCode
from karyi.workspace.paths import SYSTEM_DIRS, PathError, PathPolicy


@pytest.fixture
def policy(ws_root: Path) -> PathPolicy:
    return PathPolicy.create(ws_root)


def refused(policy: PathPolicy, raw: object) -> PathError:
    with pytest.raises(PathError) as info:
        policy.resolve(raw)
    return info.value


def test_relative_paths_resolve_against_the_root(policy: PathPolicy, ws_root: Path) -> None:
    assert policy.resolve("src/main.py") == ws_root.resolve() / "src" / "main.py"
    assert policy.resolve("./src/../README.md") == ws_root.resolve() / "README.md"
    assert policy.resolve("new/dir/file.txt") == ws_root.resolve() / "new" / "dir" / "file.txt"


def test_absolute_paths_inside_the_root_are_allowed(policy: PathPolicy, ws_root: Path) -> None:
    assert policy.resolve(str(ws_root / "README.md")) == ws_root.resolve() / "README.md"
    assert policy.resolve(str(ws_root)) == ws_root.resolve()


def test_dotdot_escape_is_refused(policy: PathPolicy) -> None:
    err = refused(policy, "../outside.txt")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "'..' leads outside the workspace" in err.message


def test_absolute_path_outside_is_refused(policy: PathPolicy, tmp_path: Path) -> None:
    err = refused(policy, str(tmp_path / "elsewhere"))
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "outside the workspace" in err.message


def test_home_shortcut_is_expanded_then_checked(policy: PathPolicy) -> None:
    err = refused(policy, "~/.ssh/id_rsa")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert os.path.expanduser("~/.ssh/id_rsa") in err.message


def test_symlink_leading_outside_is_refused(
    policy: PathPolicy, ws_root: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    (ws_root / "link").symlink_to(secret)
    err = refused(policy, "link")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "a symlink leads to" in err.message and str(secret) in err.message


def test_symlinked_directory_leading_outside_is_refused(
    policy: PathPolicy, ws_root: Path, tmp_path: Path
) -> None:
    (tmp_path / "other").mkdir()
    (ws_root / "linkdir").symlink_to(tmp_path / "other")
    assert refused(policy, "linkdir/new-file.txt").code == ErrorCode.FORBIDDEN_PATH


def test_resolve_entry_names_the_link_itself(
    policy: PathPolicy, ws_root: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("x")
    (ws_root / "outside-link").symlink_to(secret)
    (ws_root / "inside-link").symlink_to(ws_root / "README.md")
    root = ws_root.resolve()
    # the link itself lives in the workspace: removing or moving it touches nothing else
    assert policy.resolve_entry("outside-link") == root / "outside-link"
    assert policy.resolve_entry("inside-link") == root / "inside-link"
    # what is not a link resolves as usual, and the folder holding a link is still checked
    assert policy.resolve_entry("src/../README.md") == root / "README.md"
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "l").symlink_to(secret)
    (ws_root / "linkdir").symlink_to(tmp_path / "other")
    with pytest.raises(PathError) as info:
        policy.resolve_entry("linkdir/l")
    assert info.value.code == ErrorCode.FORBIDDEN_PATH
    with pytest.raises(PathError):
        policy.resolve_entry("../x")


def test_symlink_inside_the_workspace_resolves_to_its_target(
    policy: PathPolicy, ws_root: Path
) -> None:
    (ws_root / "alias.md").symlink_to(ws_root / "README.md")
    assert policy.resolve("alias.md") == ws_root.resolve() / "README.md"


@pytest.mark.parametrize("system_dir", SYSTEM_DIRS)
def test_every_system_directory_is_refused_even_when_allowed(
    system_dir: str, ws_root: Path
) -> None:
    policy = PathPolicy.create(ws_root, ["/"])
    err = refused(policy, system_dir + "/anything")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "protected system directory" in err.message


@pytest.mark.parametrize("system_dir", ["/etc", "/proc", "/usr"])
def test_symlink_into_a_system_directory_is_refused(system_dir: str, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "sneaky").symlink_to(system_dir)
    policy = PathPolicy.create(root, ["/"])
    err = refused(policy, "sneaky")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "protected system directory" in err.message


def test_extra_allowed_roots(ws_root: Path, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    policy = PathPolicy.create(ws_root, [str(shared)])
    assert policy.resolve(str(shared / "a.txt")) == shared.resolve() / "a.txt"
    err = refused(policy, str(tmp_path / "nope"))
    assert "allowed roots" in err.message and str(shared.resolve()) in err.message


def test_relative_extra_roots_are_taken_from_the_workspace(ws_root: Path) -> None:
    (ws_root.parent / "sibling").mkdir()
    policy = PathPolicy.create(ws_root, ["../sibling"])
    assert policy.resolve("../sibling/x") == (ws_root.parent / "sibling" / "x").resolve()


@pytest.mark.parametrize("raw", ["", "   ", None, 42])
def test_empty_or_non_string_paths_are_invalid_input(policy: PathPolicy, raw: object) -> None:
    err = refused(policy, raw)
    assert err.code == ErrorCode.INVALID_TOOL_INPUT
    assert "expected a non-empty path" in err.message


def test_nul_byte_is_invalid_input(policy: PathPolicy) -> None:
    err = refused(policy, "README.md\x00.txt")
    assert err.code == ErrorCode.INVALID_TOOL_INPUT
    assert "NUL" in err.message


def test_display_is_relative_inside_and_absolute_outside(policy: PathPolicy, ws_root: Path) -> None:
    assert policy.display(ws_root.resolve() / "src" / "main.py") == "src/main.py"
    assert policy.display(ws_root.resolve()) == "."
    assert policy.display(Path("/tmp/x")) == "/tmp/x"


def test_a_file_uri_inside_the_workspace_is_its_path(policy: PathPolicy, ws_root: Path) -> None:
    uri = (ws_root.resolve() / "src" / "main file.py").as_uri()
    assert policy.resolve(uri) == ws_root.resolve() / "src" / "main file.py"
    assert policy.resolve("file://localhost" + str(ws_root.resolve() / "a.txt")).name == "a.txt"


def test_a_file_uri_outside_the_workspace_is_refused(policy: PathPolicy) -> None:
    err = refused(policy, "file:///etc/passwd")
    assert err.code == ErrorCode.FORBIDDEN_PATH
    assert "'file:///etc/passwd': it is outside the workspace" in err.message
    assert refused(policy, "file://evil.example/x").code == ErrorCode.INVALID_TOOL_INPUT


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        ("$HOME/.bashrc", "variables like $HOME are not expanded in paths"),
        ("${HOME}/.bashrc", "variables like $HOME are not expanded in paths"),
        ("src/$DIR/x.py", "variables like $HOME are not expanded in paths"),
        ("~root/.ssh/id_rsa", "'~user' is not expanded in paths; write the absolute path"),
        ("%2e%2e/%2e%2e/etc/passwd", "percent-encoding is not decoded in paths"),
        ("src%2F..%2F..%2Fx", "percent-encoding is not decoded in paths"),
        ("..\\..\\etc\\passwd", "'\\' is not a path separator here; write '/'"),
    ],
)
def test_forms_the_policy_does_not_expand_are_refused_with_what_to_write(
    policy: PathPolicy, ws_root: Path, raw: str, says: str
) -> None:
    err = refused(policy, raw)
    assert err.code == ErrorCode.INVALID_TOOL_INPUT
    assert says in err.message
    assert not any(p.name.startswith(("$", "%", "~", "..")) for p in ws_root.iterdir())


def test_dollar_signs_inside_names_are_ordinary(policy: PathPolicy, ws_root: Path) -> None:
    assert policy.resolve("build/Outer$Inner.class").name == "Outer$Inner.class"
