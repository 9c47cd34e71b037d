"""The built-in tools are known by their catalogue entries and imported on first use."""

from __future__ import annotations

import json
import subprocess
import sys

from karyi.tools.builtin.mutating import MutatingTool
from karyi.tools.catalogue import CATALOGUE, build, declaration, tool_class
from karyi.tools.context import ToolContext
from karyi.tools.deferred import DeferredTool, deferred
from karyi.tools.profiles import BUILTIN_TOOLS, builtin_registry


def test_the_catalogue_is_what_the_tool_classes_declare() -> None:
    saved = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    assert saved == build(), "tools/catalogue.json is stale: run `python -m karyi.tools.catalogue`"


def test_every_registered_built_in_tool_is_deferred_with_its_class_declaration() -> None:
    registry = builtin_registry()
    for profile, places in BUILTIN_TOOLS.items():
        tools = list(registry.profile(profile).values())
        assert len(tools) == len(places)
        for tool, place in zip(tools, places, strict=True):
            assert isinstance(tool, DeferredTool)
            assert declaration(type(tool)) == declaration(tool_class(place))
            assert type(tool.loaded()) is tool_class(place)


def test_building_the_registry_imports_no_tool_module() -> None:
    probe = (
        "import json, sys; from karyi.tools.profiles import builtin_registry, default_toolkit;"
        "default_toolkit(builtin_registry(), 'karyi');"
        "print(json.dumps([m for m in sys.modules if m.startswith('karyi.tools.builtin.')]))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == []


async def test_a_deferred_tool_answers_as_the_real_one(ctx: ToolContext) -> None:
    tool = deferred("file_operations:GetFileInfo")
    real = tool_class("file_operations:GetFileInfo")()
    assert (tool.name, tool.title, tool.permission) == (real.name, real.title, real.permission)
    assert tool.validate({"path": 3}) == real.validate({"path": 3})
    assert tool.describe({"filePath": "README.md"}) == real.describe({"filePath": "README.md"})
    done = await tool.run({"filePath": "README.md"}, ctx)
    assert (
        done.success
        and done.to_dict() == (await real.run({"filePath": "README.md"}, ctx)).to_dict()
    )
    assert tool.loaded() is tool.loaded()


def test_what_only_some_tools_have_comes_from_the_real_tool() -> None:
    tool = deferred("write:VecliWriteFile")
    assert isinstance(tool.loaded(), MutatingTool)
    assert tool.path_params == tool.loaded().path_params  # type: ignore[attr-defined]
