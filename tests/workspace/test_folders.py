"""Every workspace folder is a root: paths map to folders by name, and back."""

from __future__ import annotations

from pathlib import Path

import pytest

from karyi.workspace.ignore import GitIgnore
from karyi.workspace.paths import PathError, PathPolicy
from karyi.workspace.workspace import Workspace


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    api, web = tmp_path / "api", tmp_path / "web"
    for folder in (api, web):
        (folder / "src").mkdir(parents=True)
    return api.resolve(), web.resolve()


def test_a_relative_path_is_taken_from_the_folder_it_names(two: tuple[Path, Path]) -> None:
    api, web = two
    policy = PathPolicy.create(api, folders=[web])
    assert policy.folders == (api, web)
    assert policy.resolve("web/src/app.ts") == web / "src" / "app.ts"
    assert policy.resolve("api/src/app.py") == api / "src" / "app.py"
    assert policy.resolve("src/app.py") == api / "src" / "app.py"  # no folder named: the root
    assert policy.resolve(str(web / "x")) == web / "x"


def test_paths_are_shown_as_folder_slash_path(two: tuple[Path, Path]) -> None:
    api, web = two
    policy = PathPolicy.create(api, folders=[web])
    assert policy.display(web / "src" / "app.ts") == "web/src/app.ts"
    assert policy.display(api / "src") == "api/src"
    assert policy.display(web) == "web"
    assert PathPolicy.create(api).display(api / "src") == "src"  # one folder: as before


def test_outside_every_folder_is_refused_and_the_folders_are_named(
    two: tuple[Path, Path], tmp_path: Path
) -> None:
    api, web = two
    policy = PathPolicy.create(api, folders=[web])
    with pytest.raises(PathError, match=f"outside the workspace folders {api}, {web}"):
        policy.resolve(str(tmp_path / "elsewhere"))


def test_a_repeated_folder_name_gets_a_number(tmp_path: Path) -> None:
    a, b = tmp_path / "one" / "app", tmp_path / "two" / "app"
    a.mkdir(parents=True)
    b.mkdir(parents=True)
    policy = PathPolicy.create(a, folders=[b])
    assert list(policy.folder_names) == ["app", "app-2"]
    assert policy.resolve("app-2/x") == b.resolve() / "x"


def test_each_folders_gitignore_applies_to_it(two: tuple[Path, Path]) -> None:
    api, web = two
    (web / ".gitignore").write_text("dist/\n")
    ignore = GitIgnore(api, web)
    assert ignore.ignored(web / "dist" / "a.js", False)
    assert not ignore.ignored(api / "dist" / "a.js", False)


async def test_folders_come_and_go_and_are_watched(two: tuple[Path, Path]) -> None:
    api, web = two
    ws = Workspace.open(api)
    docs = ws.documents
    await docs.start_watching()
    try:
        await ws.set_folders([web])
        assert ws.folders == (api, web) and [w.root for w in docs.watchers] == [api, web]
        assert all(w.running for w in docs.watchers)
        assert ws.resolve("web/src/x.ts") == web / "src" / "x.ts"
        await ws.set_folders([])
        assert ws.folders == (api,) and [w.root for w in docs.watchers] == [api]
        assert ws.display(api / "src") == "src"
    finally:
        await docs.stop_watching()
