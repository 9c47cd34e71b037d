"""Every example of the seed design documents parses to exactly the calls it describes.

Seeds 000 (ToolsXML), 001 (Agent XML), 002 (`<tool_call>`) and 003 (native function
calling) are the authority on each format; the examples below are copied verbatim.
"""

from __future__ import annotations

import json
import re

import pytest

from karyi.protocol import CallOutcome, CallStarted, DialectState, ToolCall, get_dialect
from karyi.protocol.native import Native, NativeParser, parse_message

from ._helpers import calls, named, obj_schema, parse, schemas_of, texts

# -- seed 000: KaryiAgent ToolsXML v1.0 --------------------------------------------------

SEED000_ROOT = """\
<tools>
  <!-- 在这里放置一个或多个工具调用 -->
</tools>
"""

SEED000_COMMAND = """\
<tools>
  <command>
    npm install
    npm run build
  </command>
</tools>
"""

SEED000_EDIT = """\
<tools>
  <edit>
    <!-- 对单个文件进行一次替换 -->
    <file src="src/config.ts">
      <find>const API_URL = "http://localhost:3000";</find>
      <replace>const API_URL = "https://api.production.com";</replace>
    </file>
    
    <!-- 对另一个文件进行多次替换 -->
    <file src="README.md">
      <find>Project Alpha</find>
      <replace>Project Karyi</replace>
      <find>This is a private project.</find>
      <replace>This is an open-source project.</replace>
    </file>
  </edit>
</tools>
"""  # noqa: W293 (the seed has a whitespace-only line here)

SEED000_READ = """\
<tools>
  <read>
    <!-- 读取 package.json 的内容 -->
    <file src="package.json"/>
    
    <!-- 列出 src 目录下的文件和子目录 -->
    <file src="src/"/>
  </read>
</tools>
"""  # noqa: W293

SEED000_GET_VALUE = """\
<tools>
  <get_value key="NPM_TOKEN" reason="需要认证才能将 package 发布到 npm registry。" \
note="用于发布 karyi-agent 包的令牌"/>
</tools>
"""

SEED000_INPUT = r"""<tools>
  <input>y\n</input> <!-- 手动添加换行符 -->
</tools>
"""

SEED000_CTRL = """\
<tools>
  <ctrl>c</ctrl> <!-- 发送 SIGINT (Ctrl+C) -->
</tools>
"""

SEED000_SECRET = """\
<tools>
  <command>
    curl -X POST \\
      -H "Authorization: Bearer $KARYI{GITHUB_TOKEN}" \\
      -d '{"event_type": "deploy"}' \\
      https://api.github.com/repos/user/repo/dispatches
  </command>
</tools>
"""

SEED000_CASES = {
    "root": (SEED000_ROOT, []),
    "command": (SEED000_COMMAND, [("command", {"command": "npm install\nnpm run build"})]),
    "edit": (
        SEED000_EDIT,
        [
            (
                "edit",
                {
                    "files": [
                        {
                            "src": "src/config.ts",
                            "pairs": [
                                {
                                    "find": 'const API_URL = "http://localhost:3000";',
                                    "replace": 'const API_URL = "https://api.production.com";',
                                }
                            ],
                        },
                        {
                            "src": "README.md",
                            "pairs": [
                                {"find": "Project Alpha", "replace": "Project Karyi"},
                                {
                                    "find": "This is a private project.",
                                    "replace": "This is an open-source project.",
                                },
                            ],
                        },
                    ]
                },
            )
        ],
    ),
    "read": (SEED000_READ, [("read", {"files": [{"src": "package.json"}, {"src": "src/"}]})]),
    "get_value": (
        SEED000_GET_VALUE,
        [
            (
                "get_value",
                {
                    "key": "NPM_TOKEN",
                    "reason": "需要认证才能将 package 发布到 npm registry。",
                    "note": "用于发布 karyi-agent 包的令牌",
                },
            )
        ],
    ),
    # The parser keeps the literal backslash-n; interpreting C escapes is the tool's job.
    "input": (SEED000_INPUT, [("input", {"text": "y\\n"})]),
    "ctrl": (SEED000_CTRL, [("ctrl", {"key": "c"})]),
    # The placeholder is kept verbatim: substitution happens only at execution.
    "secret": (
        SEED000_SECRET,
        [
            (
                "command",
                {
                    "command": "curl -X POST \\\n"
                    '  -H "Authorization: Bearer $KARYI{GITHUB_TOKEN}" \\\n'
                    '  -d \'{"event_type": "deploy"}\' \\\n'
                    "  https://api.github.com/repos/user/repo/dispatches"
                },
            )
        ],
    ),
}


@pytest.mark.parametrize("case", sorted(SEED000_CASES))
def test_seed000_example(case: str) -> None:
    reply, expected = SEED000_CASES[case]
    events = parse("toolsxml", reply)
    assert named(events) == expected
    assert [c.index for c in calls(events)] == list(range(len(expected)))


@pytest.mark.parametrize("case", sorted(SEED000_CASES))
def test_seed000_example_in_prose(case: str) -> None:
    """The seed's examples inside a normal reply: prose around the block is text."""
    reply, expected = SEED000_CASES[case]
    events = parse("toolsxml", "I will do it now.\n\n" + reply + "\nWaiting for results.")
    assert named(events) == expected
    assert texts(events) == {"text": "I will do it now.\n\n\n\nWaiting for results."}


def test_seed000_all_tools_in_one_block() -> None:
    """Several tools in one <tools> block (the seed: they may run in parallel)."""
    inner = [re.search(r"<tools>\n(.*)</tools>", r, re.S) for r, _ in SEED000_CASES.values()]
    body = "".join(m.group(1) for m in inner if m)
    events = parse("toolsxml", f"<tools>\n{body}</tools>")
    expected = [call for name in SEED000_CASES for call in SEED000_CASES[name][1]]
    assert named(events) == expected
    assert [c.index for c in calls(events)] == list(range(len(expected)))


# -- seed 001: Agent XML ------------------------------------------------------------------

SEED001_TOOLS = """\
<tools>
[
  {
    "id": "1",
    "name": "search_web",
    "parameters": {
      "query": "深圳今天天气怎么样？"
    }
  },
  {
    "id": "2",
    "name": "read_file",
    "parameters": {
      "filePath": "info.txt"
    }
  }
]
</tools>
"""

SEED001_FULL = """\
<user_task>告诉我埃菲尔铁塔有多高？</user_task>
<thinking>我需要找到埃菲尔铁塔的高度。可以使用 search_web 工具进行搜索。搜索关键词为"埃菲尔铁塔高度"。</thinking>
<tools>
[
  {
    "id": "3",
    "name": "search_web",
    "parameters": {
      "query": "埃菲尔铁塔高度"
    }
  }
]
</tools>
<tools_result>
[
  {
    "id": "3",
    "result": "{\\\\n  \\\\"success\\\\": true,\\\\n  \\\\"data\\\\": \\\\"埃菲尔铁塔高度约为330米（包括天线），是巴黎的标志性建筑\\\\"\\\\n}"
  }
]
</tools_result>
<thinking>搜索结果显示了埃菲尔铁塔的高度信息</thinking>
<final_answer>埃菲尔铁塔的高度约为330米（包括天线），是巴黎的标志性建筑。</final_answer>
"""  # noqa: E501


def test_seed001_tools_array() -> None:
    events = parse("agentxml", SEED001_TOOLS)
    assert [(c.id, c.name, c.params, c.error) for c in calls(events)] == [
        ("1", "search_web", {"query": "深圳今天天气怎么样？"}, None),
        ("2", "read_file", {"filePath": "info.txt"}, None),
    ]
    assert [c.index for c in calls(events)] == [0, 1]
    assert texts(events) == {"text": "\n"}


def test_seed001_full_example() -> None:
    events = parse("agentxml", SEED001_FULL)
    assert [(c.id, c.name, c.params, c.error) for c in calls(events)] == [
        ("3", "search_web", {"query": "埃菲尔铁塔高度"}, None)
    ]
    prose = re.sub(r"<(thinking|tools|final_answer)>.*?</\1>", "", SEED001_FULL, flags=re.S)
    assert texts(events) == {
        "text": prose,
        "thinking": "我需要找到埃菲尔铁塔的高度。可以使用 search_web 工具进行搜索。"
        '搜索关键词为"埃菲尔铁塔高度"。'
        "搜索结果显示了埃菲尔铁塔的高度信息",
        "answer": "埃菲尔铁塔的高度约为330米（包括天线），是巴黎的标志性建筑。",
    }
    # <user_task> and a <tools_result> the model echoed are prose, never calls.
    assert "<user_task>告诉我埃菲尔铁塔有多高？</user_task>" in prose
    assert "<tools_result>" in prose


@pytest.mark.parametrize(
    ("reply", "channel", "text"),
    [
        (
            "<user_task>计算 2+2 的结果</user_task>",
            "text",
            "<user_task>计算 2+2 的结果</user_task>",
        ),
        (
            "<thinking>这是一个简单的数学计算问题，可以直接计算 2+2 的结果。</thinking>",
            "thinking",
            "这是一个简单的数学计算问题，可以直接计算 2+2 的结果。",
        ),
        (
            "<final_answer>埃菲尔铁塔的高度约为330米。</final_answer>",
            "answer",
            "埃菲尔铁塔的高度约为330米。",
        ),
    ],
)
def test_seed001_tag_examples(reply: str, channel: str, text: str) -> None:
    events = parse("agentxml", reply)
    assert calls(events) == []
    assert texts(events) == {channel: text}


def test_seed001_ids_unique_across_the_history() -> None:
    """Seed 001: ids are unique and must not repeat ids from the history."""
    state = DialectState()
    first = calls(parse("agentxml", SEED001_TOOLS, state=state))
    again = calls(parse("agentxml", SEED001_TOOLS, state=state))
    assert [c.error for c in first] == [None, None]
    assert [c.error_code for c in again] == ["duplicate_id", "duplicate_id"]
    # The full example uses id "3": fine after "1" and "2".
    assert [c.error for c in calls(parse("agentxml", SEED001_FULL, state=state))] == [None]


def test_seed001_tools_result_shape() -> None:
    """Seed 001: `<tools_result>` holds [{"id", "result"}] and result is a JSON string."""
    call = ToolCall(0, "search_web", {"query": "深圳今天天气怎么样？"}, "1")
    read = ToolCall(1, "read_file", {"filePath": "info.txt"}, "2")
    rendered = get_dialect("agentxml").render_results(
        [
            CallOutcome(call, True, "今天深圳气温31度，多云"),
            CallOutcome(read, True, "文件内容..."),
        ]
    )
    body = re.fullmatch(r"<tools_result>\n(.*)\n</tools_result>", rendered, re.S)
    assert body is not None
    items = json.loads(body.group(1))
    assert [(i["id"], json.loads(i["result"])) for i in items] == [
        ("1", {"success": True, "data": "今天深圳气温31度，多云"}),
        ("2", {"success": True, "data": "文件内容..."}),
    ]


# -- seed 002: <tool_call> with CDATA ------------------------------------------------------

SEED002_CALL = """\
<tool_call>
  <name>web_search</name>
  <params>
    <query><![CDATA[Python async best practices]]></query>
    <max_results><![CDATA[10]]></max_results>
  </params>
</tool_call>"""

SEED002_GENERATED = """\
<tool_call>
  <name>web_search</name>
  <params>
    <query><![CDATA[your_query_here]]></query>
    <freshness><![CDATA[noLimit]]></freshness>
    <count><![CDATA[10]]></count>
  </params>
</tool_call>"""

WEB_SEARCH = obj_schema(["query"], query="string", max_results="integer")


def test_seed002_call_typed_by_schema() -> None:
    events = parse("toolcall", SEED002_CALL, schemas=schemas_of({"web_search": WEB_SEARCH}))
    assert named(events) == [
        ("web_search", {"query": "Python async best practices", "max_results": 10})
    ]


def test_seed002_schema_string_keeps_digits_as_text() -> None:
    schema = obj_schema(query="string", max_results="string")
    events = parse("toolcall", SEED002_CALL, schemas=schemas_of({"web_search": schema}))
    assert named(events) == [
        ("web_search", {"query": "Python async best practices", "max_results": "10"})
    ]


def test_seed002_blind_rule_without_schema() -> None:
    reply = (
        "<tool_call><name>t</name><params>"
        "<a><![CDATA[true]]></a><b><![CDATA[false]]></b><c><![CDATA[123]]></c>"
        "<d><![CDATA[3.14]]></d><e><![CDATA[other]]></e>"
        "</params></tool_call>"
    )
    assert named(parse("toolcall", SEED002_CALL)) == [
        ("web_search", {"query": "Python async best practices", "max_results": 10})
    ]
    assert named(parse("toolcall", reply)) == [
        ("t", {"a": True, "b": False, "c": 123, "d": 3.14, "e": "other"})
    ]


def test_seed002_prompt_generator_layout() -> None:
    """format_call writes the seed's exact example layout."""
    text = get_dialect("toolcall").format_call(
        "web_search", {"query": "your_query_here", "freshness": "noLimit", "count": 10}
    )
    assert text == SEED002_GENERATED


def test_seed002_generated_example_parses_back() -> None:
    schema = obj_schema(["query"], query="string", freshness="string", count="integer")
    events = parse("toolcall", SEED002_GENERATED, schemas=schemas_of({"web_search": schema}))
    assert named(events) == [
        ("web_search", {"query": "your_query_here", "freshness": "noLimit", "count": 10})
    ]


# -- seed 003: native function calling -----------------------------------------------------


def native() -> NativeParser:
    parser = get_dialect("native").parser()
    assert isinstance(parser, NativeParser)
    return parser


def test_seed003_openai_streamed_tool_call_deltas() -> None:
    """OpenAI chat-completions stream: `delta.tool_calls[i]` fragments by index."""
    p = native()
    deltas = [
        {"index": 0, "id": "call_A", "function": {"name": "read_file", "arguments": ""}},
        {"index": 0, "function": {"arguments": '{"absolute_'}},
        {"index": 0, "function": {"arguments": 'path": "/w/a.py"}'}},
        {"index": 1, "id": "call_B", "function": {"name": "list_directory", "arguments": ""}},
        {"index": 1, "function": {"arguments": '{"path": "/w"}'}},
    ]
    events = p.feed("Let me look.")
    first_done: list[ToolCall] = []
    for d in deltas:
        fn = d["function"]
        assert isinstance(fn, dict)
        out = p.feed_call(
            int(str(d["index"])),
            call_id=str(d.get("id", "")) or None,
            name=fn.get("name") or None,
            arguments=fn.get("arguments", ""),
        )
        events += out
        if d["index"] == 1 and "id" in d:
            first_done = calls(out)  # slot 1 opening completes slot 0
    events += p.close()
    assert first_done == [calls(events)[0]]
    assert [(c.index, c.id, c.name, c.params, c.error) for c in calls(events)] == [
        (0, "call_A", "read_file", {"absolute_path": "/w/a.py"}, None),
        (1, "call_B", "list_directory", {"path": "/w"}, None),
    ]
    assert [(e.index, e.name) for e in events if isinstance(e, CallStarted)] == [
        (0, "read_file"),
        (1, "list_directory"),
    ]
    assert texts(events) == {"text": "Let me look."}


def test_seed003_anthropic_tool_use_with_input_json_delta() -> None:
    """Anthropic messages stream: content_block_start/delta/stop per block index."""
    p = native()
    events = p.feed("I'll run the tests.")  # block 0: text
    events += p.feed_call(1, call_id="toolu_01", name="run_shell_command")
    for part in ['{"comm', 'and": "pytest', ' -q"}']:
        events += p.feed_call(1, arguments=part)
    assert calls(events) == []  # not complete before content_block_stop
    stopped = p.end_call(1)
    assert [(c.id, c.name, c.params) for c in calls(stopped)] == [
        ("toolu_01", "run_shell_command", {"command": "pytest -q"})
    ]
    assert p.close() == []


def test_seed003_gemini_function_call_parts() -> None:
    """Gemini: a model content whose parts hold text and functionCall."""
    message = {
        "role": "model",
        "parts": [
            {"text": "Listing the directory."},
            {"functionCall": {"name": "list_directory", "args": {"path": "/w"}}},
            {"functionCall": {"name": "glob", "args": {"pattern": "**/*.py"}}},
        ],
    }
    events = parse_message(native(), message)
    assert named(events) == [("list_directory", {"path": "/w"}), ("glob", {"pattern": "**/*.py"})]
    assert texts(events) == {"text": "Listing the directory."}
    # The bare list of parts works the same way.
    assert named(parse_message(native(), message["parts"])) == named(events)


def test_seed003_function_declarations() -> None:
    """Tools are declared as JSON Schema function declarations."""
    schema = obj_schema(["absolute_path"], absolute_path="string")
    assert Native.declarations([("read_file", "Reads a file.", schema)]) == [
        {"name": "read_file", "description": "Reads a file.", "parameters": schema}
    ]
