"""The prompt generator: per-tool sections in each dialect, the research design's exact layout."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from karyi.core.results import ToolResult
from karyi.protocol import get_dialect
from karyi.tools.base import Tool
from karyi.tools.context import ToolContext
from karyi.tools.profiles import builtin_registry, default_toolkit
from karyi.tools.prompt import declarations, describe_tool, format_tool_result, tool_prompt
from karyi.tools.registry import ToolRegistry


class WebSearchLike(Tool):
    """The research design's example tool, to check the exact layout."""

    name = "web_search"
    description = "Search the web for information using Bocha AI search engine"
    parameters = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Search query using keywords."},
            "freshness": {
                "type": "string",
                "description": "Time range filter: 'noLimit', 'oneDay', ...",
                "default": "noLimit",
            },
            "count": {
                "type": "integer",
                "description": "Number of results to return (1-50)",
                "default": 10,
            },
        },
        "required": ["query"],
    }

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult.ok("")


def test_toolcall_section_matches_seed_002_exactly() -> None:
    assert describe_tool(WebSearchLike(), get_dialect("toolcall")) == (
        "### web_search\n"
        "Description: Search the web for information using Bocha AI search engine\n"
        "Parameters:\n"
        "  - query: string (required) - Search query using keywords.\n"
        "  - freshness: string (optional) - Time range filter: 'noLimit', 'oneDay', ...\n"
        "    Default: noLimit\n"
        "  - count: integer (optional) - Number of results to return (1-50)\n"
        "    Default: 10\n"
        "Example:\n"
        "<tool_call>\n"
        "  <name>web_search</name>\n"
        "  <params>\n"
        "    <query><![CDATA[your_query_here]]></query>\n"
        "    <freshness><![CDATA[noLimit]]></freshness>\n"
        "    <count><![CDATA[10]]></count>\n"
        "  </params>\n"
        "</tool_call>"
    )


def test_each_dialect_writes_its_own_example() -> None:
    tool = WebSearchLike()
    toolsxml = describe_tool(tool, get_dialect("toolsxml"))
    assert toolsxml.endswith(
        '<tools>\n<web_search query="your_query_here" freshness="noLimit" count="10"/>\n</tools>'
    )
    agentxml = describe_tool(tool, get_dialect("agentxml"))
    assert '"name": "web_search"' in agentxml and agentxml.rstrip().endswith("</tools>")


def test_examples_in_the_prompt_parse_back_to_valid_calls() -> None:
    reg = builtin_registry()
    for dialect_name in ("toolsxml", "agentxml", "toolcall"):
        dialect = get_dialect(dialect_name)
        for profile in reg.profiles():
            kit = reg.toolkit(profile)
            for tool in kit:
                text = describe_tool(tool, dialect).split("Example:\n", 1)[1]
                calls = [
                    e.call for e in dialect.parser(kit.schema).parse(text) if hasattr(e, "call")
                ]
                assert len(calls) == 1, (dialect_name, tool.name, text)
                call = calls[0]
                assert call.ok and call.name == tool.name, (dialect_name, call)
                assert tool.validate(call.params) is None, (dialect_name, tool.name, call.params)


def test_tool_prompt_starts_with_the_dialect_rules() -> None:
    kit = default_toolkit(builtin_registry(), "karyi")
    text = tool_prompt(kit, "toolsxml")
    assert text.startswith("# How to use tools (KaryiAgent ToolsXML)")
    assert "### read" in text and "<read>" in text


def test_native_prompt_has_no_syntax_and_declarations_carry_the_schemas() -> None:
    reg = ToolRegistry()
    reg.register("p", WebSearchLike())
    kit = reg.toolkit("p")
    assert "### web_search" not in tool_prompt(kit, "native")
    assert declarations(kit) == [
        {
            "name": "web_search",
            "description": WebSearchLike.description,
            "parameters": WebSearchLike.parameters,
        }
    ]


def test_format_tool_result_from_a_result_dict() -> None:
    ok = ToolResult.ok("3 results").to_dict()
    assert format_tool_result("web_search", ok) == (
        "<tool_result>\n  <name>web_search</name>\n  <status>success</status>\n"
        "  <result><![CDATA[3 results]]></result>\n</tool_result>"
    )
    failed = ToolResult.fail("tool_error", "backend down").to_dict()
    assert '<error code="tool_error"><![CDATA[backend down]]></error>' in format_tool_result(
        "web_search", failed
    )
