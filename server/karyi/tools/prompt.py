"""The prompt generator: tool instructions for a toolkit and a dialect.

Every dialect gets the same per-tool layout: name, description, each
parameter with type, required/optional and default, and an example call written in
that dialect. For `native`, the tools travel as function declarations instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.protocol import get_dialect
from karyi.protocol.base import Dialect
from karyi.protocol.calls import CallOutcome, ToolCall
from karyi.protocol.native import Native
from karyi.protocol.toolcall import format_tool_result as _format_tool_result
from karyi.tools.base import Tool
from karyi.tools.registry import Toolkit


def type_text(schema: Mapping[str, Any]) -> str:
    """A parameter's type in words: `string`, `array of string`, `object {a, b}`."""
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " | ".join(kind)
    if kind == "array":
        items = schema.get("items")
        return f"array of {type_text(items)}" if isinstance(items, Mapping) else "array"
    if kind == "object" and isinstance(schema.get("properties"), Mapping):
        required = set(schema.get("required", []))
        fields = [
            f"{k}: {type_text(v)}{'' if k in required else '?'}"
            for k, v in schema["properties"].items()
        ]
        return "object {" + ", ".join(fields) + "}"
    if "enum" in schema:
        return f"{kind} (one of: {', '.join(str(v) for v in schema['enum'])})"
    return str(kind)


def example_params(tool: Tool) -> dict[str, Any]:
    """The tool's own example, or one made from its schema."""
    if tool.example is not None:
        return dict(tool.example)
    props: Mapping[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    out: dict[str, Any] = {}
    for name, schema in props.items():
        if "default" in schema:
            out[name] = schema["default"]
        elif name in required:
            out[name] = _placeholder(name, schema)
    return out


def _placeholder(name: str, schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items")
        return [_placeholder(name, items)] if isinstance(items, Mapping) else []
    if kind == "object":
        return {}
    if "enum" in schema:
        return schema["enum"][0]
    return f"your_{name}_here"


def describe_tool(tool: Tool, dialect: Dialect) -> str:
    """One tool's section of the prompt."""
    lines = [f"### {tool.name}", f"Description: {tool.description}"]
    props: Mapping[str, Any] = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    if props:
        lines.append("Parameters:")
        for name, schema in props.items():
            need = "required" if name in required else "optional"
            desc = schema.get("description", "")
            lines.append(
                f"  - {name}: {type_text(schema)} ({need})" + (f" - {desc}" if desc else "")
            )
            if "default" in schema:
                lines.append(f"    Default: {_default_text(schema['default'])}")
    else:
        lines.append("Parameters: none")
    lines.append("Example:")
    lines.append(dialect.format_call(tool.name, example_params(tool)))
    return "\n".join(lines)


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def tool_prompt(toolkit: Toolkit, dialect: Dialect | str) -> str:
    """The complete tool instructions for a system prompt."""
    d = get_dialect(dialect) if isinstance(dialect, str) else dialect
    parts = [d.instructions().rstrip()]
    if isinstance(d, Native):
        return parts[0] + "\n"
    parts.append("## Available tools")
    parts += [describe_tool(tool, d) for tool in toolkit]
    return "\n\n".join(parts) + "\n"


def declarations(toolkit: Toolkit) -> list[dict[str, Any]]:
    """Function declarations for native tool calling: name, description, parameters."""
    return Native.declarations([(t.name, t.description, t.parameters) for t in toolkit])


def format_tool_result(name: str, result: Mapping[str, Any]) -> str:
    """`ToolPromptGenerator.format_tool_result(name, result)`: one result as the model reads it.

    `result` is a `ToolResult.to_dict()`.
    """
    error = result.get("error") or {}
    outcome = CallOutcome(
        call=ToolCall(index=0, name=name, params={}, id=""),
        success=bool(result.get("success")),
        content=str(result.get("llm_content") or error.get("message") or ""),
        status=str(result.get("status") or ""),
        error_code=error.get("code"),
    )
    return _format_tool_result(outcome)
