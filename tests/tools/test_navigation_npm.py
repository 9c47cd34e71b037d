"""The navigation tools on an npm package's own TypeScript sources: immer 11.2.13 (MIT,
its npm tarball vendored in tests/tools/data/npm, LICENSE inside). Definitions must be
exact; references are measured against TypeScript's own compiler API (every identifier
under src/ whose symbol, through imports and exports, is the one declared), beside
`rg -w` on the same names (docs/tools.md#references)."""

from __future__ import annotations

import json
import subprocess
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.navigation.navigator import Navigator
from karyi.navigation.programs import find_program
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.rg_words import rg_words
from tests.support.tool_calls import call

TARBALL = Path(__file__).with_name("data") / "npm" / "immer-11.2.13.tgz"
TRUTH = Path(__file__).parents[1] / "support" / "ts_references.cjs"
TSCONFIG = {
    "compilerOptions": {
        "strict": True,
        "target": "ES2020",
        "module": "ESNext",
        "moduleResolution": "Bundler",
        "lib": ["ES2020", "DOM"],
        "noEmit": True,
    },
    "include": ["src"],
}
QUESTIONS = [
    ("isDraftable", "src/utils/common.ts", 46),
    ("shallowCopy", "src/utils/common.ts", 213),
    ("getPlugin", "src/utils/plugins.ts", 54),
    ("die", "src/utils/errors.ts", 41),
    ("markChanged", "src/core/proxy.ts", 347),
    ("createProxy", "src/core/immerClass.ts", 235),
    ("revokeScope", "src/core/scope.ts", 72),
    ("processResult", "src/core/finalize.ts", 28),
    ("get", "src/utils/common.ts", 140),
    ("has", "src/utils/common.ts", 130),
    ("set", "src/utils/common.ts", 149),
    ("latest", "src/utils/common.ts", 198),
]
"""Names with the file and line of their declaration: functions and `export let`
arrows, some of them common words (`get`, `has`, `set`) that a text search also finds
as methods, properties and traps of the same name."""

Place = tuple[str, int, int]


def _typescript() -> Path:
    """The typescript package beside typescript-language-server."""
    server = find_program("typescript-language-server")
    assert server is not None, "make install puts typescript-language-server beside Python"
    return Path(server).resolve().parents[2] / "typescript"


@pytest.fixture(scope="module")
def immer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("npm") / "immer"
    with tarfile.open(TARBALL) as archive:
        members = [
            m
            for m in archive.getmembers()
            if m.name.startswith(("package/src/", "package/LICENSE"))
        ]
        archive.extractall(root.parent, members=members, filter="data")
    (root.parent / "package").rename(root)
    (root / "tsconfig.json").write_text(json.dumps(TSCONFIG))
    return root


@pytest.fixture(scope="module")
def truth(immer: Path) -> dict[str, dict[str, list[list[object]]]]:
    node = find_program("node")
    assert node is not None
    out = subprocess.run(
        [node, str(TRUTH), str(_typescript()), str(immer), json.dumps(QUESTIONS)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    found: dict[str, dict[str, list[list[object]]]] = json.loads(out)
    return found


@pytest.fixture
async def ctx(immer: Path) -> AsyncIterator[ToolContext]:
    ws = Workspace.open(immer)
    settings = Settings()
    nav = Navigator(settings.navigation, immer, ws.documents)
    yield ToolContext(workspace=ws, settings=settings, navigator=nav)
    await nav.aclose()


def _places(data: object) -> set[Place]:
    assert isinstance(data, dict)
    return {(d["path"], d["line"], d["column"]) for d in data["locations"]}


async def test_definitions_and_references_against_typescripts_own(
    ctx: ToolContext, immer: Path, truth: dict[str, dict[str, list[list[object]]]]
) -> None:
    tally = {"tool": [0, 0, 0], "rg": [0, 0, 0]}  # found, true, truth
    for name, path, _line in QUESTIONS:
        expected = truth[name]
        declared = tuple(expected["declaration"])
        found = await call("karyi.definition", {"symbol": name, "path": path}, ctx)
        assert found.success, found.llm_content
        assert _places(found.data) == {declared}, name
        refs = await call("karyi.references", {"symbol": name, "path": path}, ctx)
        assert refs.success, refs.llm_content
        real = {tuple(p) for p in expected["references"]}
        for key, got in (("tool", _places(refs.data)), ("rg", rg_words(immer, name, "src")[0])):
            tally[key][0] += len(got)
            tally[key][1] += len(got & real)  # type: ignore[operator]
            tally[key][2] += len(real)
    tool, rg = tally["tool"], tally["rg"]
    assert tool[1] == tool[2] == tool[0]  # recall 1.0, precision 1.0 (156 places)
    assert rg[1] == rg[2]  # rg -w finds them all too ...
    assert rg[1] / rg[0] < 0.65  # ... among 260: methods, properties and traps named alike
