"""A built-in tool's parameter class gives its schema, its validation and typed values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from karyi.core.results import ToolResult
from karyi.tools.builtin.subagents import CallSubagent, configured
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class


@param_class
class Step(ToolParams):
    """A nested item."""

    id: str = arg(min_length=1, description="stable id")
    status: Literal["pending", "done"] = arg()


@param_class
class Sample(ToolParams):
    """Every kind of parameter the built-in tools use."""

    snake = False
    file_path: str = arg(description="file path")
    count: int = arg(minimum=1, maximum=50, default=10, description="how many")
    offset: int = arg(implied=1, minimum=1, description="first line")
    note: str | None = arg(implied=None, max_length=20, description="a note")
    use_defaults: bool = arg(name="use_defaults", default=True, description="kept as written")
    tags: list[str] = arg(implied=[], items={"min_length": 1}, min_items=1)
    steps: list[Step] = arg(implied=[], description="the steps")


class SampleTool(TypedTool[Sample]):
    """A tool over `Sample`."""

    name = "sample"
    description = "A sample."

    def describe(self, params: Mapping[str, Any]) -> str:
        a = self.args(params)
        return f"{a.file_path} x{a.count}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        a = self.args(params)
        return ToolResult.ok(f"{a.file_path} {a.offset} {[s.status for s in a.steps]}")


def test_the_schema_comes_from_the_class() -> None:
    assert SampleTool.parameters == {
        "type": "object",
        "properties": {
            "filePath": {"type": "string", "description": "file path"},
            "count": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "default": 10,
                "description": "how many",
            },
            "offset": {"type": "integer", "minimum": 1, "description": "first line"},
            "note": {"type": "string", "maxLength": 20, "description": "a note"},
            "use_defaults": {"type": "boolean", "default": True, "description": "kept as written"},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string", "minLength": 1, "description": "stable id"},
                        "status": {"type": "string", "enum": ["pending", "done"]},
                    },
                    "required": ["id", "status"],
                    "additionalProperties": False,
                },
                "description": "the steps",
            },
        },
        "required": ["filePath"],
        "additionalProperties": False,
    }


def test_validated_params_become_a_typed_instance_with_defaults() -> None:
    tool = SampleTool()
    a = tool.args({"filePath": "a.py", "steps": [{"id": "1", "status": "done"}]})
    assert (a.file_path, a.count, a.offset, a.note, a.use_defaults, a.tags) == (
        "a.py",
        10,
        1,
        None,
        True,
        [],
    )
    assert a.steps == [Step(id="1", status="done")]
    assert tool.args({"filePath": "b", "count": 3.0}).count == 3  # JSON Schema's integer
    assert tool.args({"filePath": "a"}).tags is not tool.args({"filePath": "a"}).tags


def test_validation_names_the_field_and_what_was_expected() -> None:
    tool = SampleTool()
    assert tool.validate({"filePath": "a", "steps": [{"id": "", "status": "x"}]}) == (
        "steps[0].id: '' should be non-empty; "
        "steps[0].status: expected one of 'pending', 'done', got 'x'"
    )
    assert tool.validate({"file_path": "a"}) == (
        "missing required parameter 'filePath' (string: file path); "
        "unknown parameter 'file_path'; expected only: count, filePath, note, offset, "
        "steps, tags, use_defaults"
    )


async def test_the_hooks_read_typed_fields(ctx: ToolContext) -> None:
    tool = SampleTool()
    assert tool.describe({"filePath": "a.py", "count": 2}) == "a.py x2"
    done = await tool.run({"filePath": "a.py", "steps": [{"id": "1", "status": "done"}]}, ctx)
    assert done.success and done.llm_content == "a.py 1 ['done']"


def test_a_subclass_keeps_the_schema_it_is_given() -> None:
    tool = configured({"explore": "reads code"})
    assert tool.parameters != CallSubagent.parameters
    assert "one of explore" in tool.parameters["properties"]["agent_name"]["description"]
    assert isinstance(tool, CallSubagent)
    assert tool.args({"agent_name": "explore", "task": "look"}).task == "look"
