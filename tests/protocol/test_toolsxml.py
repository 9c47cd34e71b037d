"""`toolsxml`: raw code inside elements, CDATA, generic tools, errors, result rendering."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from karyi.protocol import CallOutcome, DialectState, ToolCall, get_dialect

from ._helpers import calls, errors, examples, named, obj_schema, parse, schemas_of, texts

RAW_SNIPPETS = [
    '<div className="a">{x && <b/>}</div>',
    "Map<String, List<Integer>>",
    "cmd > out 2>&1 < in",
    "a &amp; b &lt; c &#10; &unknown;",
    "x ]]> y",
    "if (a<b && c>d) { return a<<2; }",
    "<!-- not a comment, just code -->",
    "</div></span>",
    "echo $KARYI{GITHUB_TOKEN} | tee <(cat) >/dev/null",
    "é 中文 😀 \t tab",
    "<tools></tools>",
    "<?php echo 1; ?>",
]


def one(reply: str, **kw: object) -> ToolCall:
    """The single call of a reply."""
    found = calls(parse("toolsxml", reply, **kw))  # type: ignore[arg-type]
    assert len(found) == 1, found
    return found[0]


def edit_of(find: str, replace: str, src: str = "a.tsx") -> dict[str, object]:
    return {"files": [{"src": src, "pairs": [{"find": find, "replace": replace}]}]}


# -- raw text survives byte for byte -----------------------------------------------------


@pytest.mark.parametrize("code", RAW_SNIPPETS)
def test_raw_code_in_find_and_replace(code: str) -> None:
    reply = (
        f'<tools><edit><file src="a.tsx"><find>{code}</find>'
        f"<replace>{code}!</replace></file></edit></tools>"
    )
    assert named(parse("toolsxml", reply)) == [("edit", edit_of(code, code + "!"))]


@pytest.mark.parametrize("code", RAW_SNIPPETS)
def test_raw_code_in_command_input_and_child_params(code: str) -> None:
    reply = (
        f"<tools>\n<command>\n    {code}\n    {code}\n</command>\n"
        f"<input>{code}</input>\n"
        f'<write_file path="x"><content>{code}</content></write_file>\n</tools>'
    )
    assert named(parse("toolsxml", reply)) == [
        ("command", {"command": f"{code}\n{code}"}),
        ("input", {"text": code}),
        ("write_file", {"path": "x", "content": code}),
    ]


def test_multiline_code_keeps_indentation_and_blank_lines() -> None:
    code = "def f(x):\n    if x < 1:\n\n        return x & 1\n    return 2\n"
    reply = f'<tools><edit><file src="f.py"><find>{code}</find><replace/></file></edit></tools>'
    assert named(parse("toolsxml", reply)) == [("edit", edit_of(code, "", "f.py"))]


def test_command_is_dedented_and_trimmed_but_inner_lines_kept() -> None:
    reply = (
        "<tools><command>\n\n      cd src\n        ls  -la  \n\n      make\n  \n</command></tools>"
    )
    assert named(parse("toolsxml", reply)) == [
        ("command", {"command": "cd src\n  ls  -la  \n\nmake"})
    ]


def test_input_is_not_trimmed_and_escapes_are_left_to_the_tool() -> None:
    reply = "<tools><input>  yes\\n\\t\\x03 </input></tools>"
    assert one(reply).params == {"text": "  yes\\n\\t\\x03 "}


def test_ctrl_key_is_trimmed_and_kept_as_written() -> None:
    assert one("<tools><ctrl> C </ctrl></tools>").params == {"key": "C"}
    assert one("<tools><ctrl>\\</ctrl></tools>").params == {"key": "\\"}


# -- CDATA ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("<![CDATA[a < b && c]]>", "a < b && c"),
        ("\n    <![CDATA[x]]>\n  ", "x"),  # only whitespace around: unwrapped
        ("<![CDATA[a ]]]]><![CDATA[> b]]>", "a ]]> b"),  # the standard `]]>` split
        ("<![CDATA[x </find> y]]>", "x </find> y"),  # a stray closing tag inside CDATA
        ("<![CDATA[]]>", ""),
        ("<![CDATA[<![CDATA[nested]]>", "<![CDATA[nested"),
        ("pre <![CDATA[x]]> post", "pre <![CDATA[x]]> post"),  # mixed: kept as written
    ],
)
def test_cdata_in_find(written: str, value: str) -> None:
    reply = (
        f'<tools><edit><file src="a"><find>{written}</find>'
        "<replace>r</replace></file></edit></tools>"
    )
    assert named(parse("toolsxml", reply)) == [("edit", edit_of(value, "r", "a"))]


def test_cdata_in_command_input_and_child() -> None:
    reply = (
        '<tools><command><![CDATA[echo "</command>"]]></command>'
        "<input><![CDATA[</input>]]></input>"
        "<grep><pattern><![CDATA[</pattern>]]]]><![CDATA[>]]></pattern></grep></tools>"
    )
    assert named(parse("toolsxml", reply)) == [
        ("command", {"command": 'echo "</command>"'}),
        ("input", {"text": "</input>"}),
        ("grep", {"pattern": "</pattern>]]>"}),
    ]


def test_cdata_between_tools_is_ignored() -> None:
    reply = "<tools><![CDATA[<command>rm -rf /</command>]]><ctrl>c</ctrl></tools>"
    assert named(parse("toolsxml", reply)) == [("ctrl", {"key": "c"})]


def test_unclosed_cdata_is_an_error() -> None:
    call = one('<tools><edit><file src="a"><find><![CDATA[abc')
    assert call.error is not None and "unclosed CDATA section in <find>" in call.error


# -- attributes ------------------------------------------------------------------------------


def test_attribute_entities_are_decoded() -> None:
    reply = (
        "<tools><read>"
        '<file src="a&amp;b"/><file src="&quot;q&quot; &lt;x&gt;"/>'
        "<file src='it&apos;s'/><file src=\"it's\"/><file src='say \"hi\"'/>"
        '<file src="line&#10;two&#x9;tab"/><file src="中文 😀"/>'
        "</read></tools>"
    )
    assert one(reply).params == {
        "files": [
            {"src": "a&b"},
            {"src": '"q" <x>'},
            {"src": "it's"},
            {"src": "it's"},
            {"src": 'say "hi"'},
            {"src": "line\ntwo\ttab"},
            {"src": "中文 😀"},
        ]
    }


def test_greater_than_inside_a_quoted_attribute() -> None:
    assert one('<tools><grep pattern="a>b" path="src"/></tools>').params == {
        "pattern": "a>b",
        "path": "src",
    }


def test_secret_placeholders_are_kept_verbatim() -> None:
    reply = (
        '<tools><http url="https://x/$KARYI{HOST}/a" token="$KARYI{API_TOKEN}">'
        '<body>{"k": "$KARYI{K}"}</body></http></tools>'
    )
    assert one(reply).params == {
        "url": "https://x/$KARYI{HOST}/a",
        "token": "$KARYI{API_TOKEN}",
        "body": '{"k": "$KARYI{K}"}',
    }


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ('<grep pattern="a" pattern="b"/>', "Attribute pattern redefined"),
        ("<grep pattern=a/>", "attributes of <grep> are not well-formed"),
        ('<grep pattern="a & b"/>', "attributes of <grep> are not well-formed"),
    ],
)
def test_bad_attributes_are_errors(tag: str, message: str) -> None:
    call = one(f"<tools>{tag}</tools>")
    assert call.name == "grep"
    assert call.error is not None and message in call.error


# -- generic tools -------------------------------------------------------------------------

GREP = obj_schema(
    ["pattern"],
    pattern="string",
    path="string",
    max="integer",
    ratio="number",
    ci="boolean",
    paths={"type": "array", "items": {"type": "string"}},
    nums={"type": "array", "items": {"type": "integer"}},
    opts="object",
)
TYPED = {"schemas": schemas_of({"grep": GREP})}


def test_generic_tool_with_attributes() -> None:
    assert named(parse("toolsxml", '<tools><grep pattern="TODO" path="src"/></tools>')) == [
        ("grep", {"pattern": "TODO", "path": "src"})
    ]


def test_generic_tool_with_child_elements() -> None:
    reply = (
        "<tools><grep>\n  <pattern>a<b</pattern>\n  <!-- why -->\n"
        "  <path>src/</path>\n</grep></tools>"
    )
    assert one(reply).params == {"pattern": "a<b", "path": "src/"}


def test_generic_tool_with_attributes_and_children() -> None:
    reply = '<tools><grep path="src"><pattern>x && y</pattern></grep></tools>'
    assert one(reply).params == {"path": "src", "pattern": "x && y"}


def test_generic_tool_with_only_a_comment_inside() -> None:
    assert one('<tools><grep pattern="x"><!-- all files --></grep></tools>').params == {
        "pattern": "x"
    }


def test_repeated_child_is_an_array_item() -> None:
    reply = (
        "<tools><grep><paths>a</paths><paths>b c</paths><nums>1</nums><nums>2</nums></grep></tools>"
    )
    assert one(reply, **TYPED).params == {"paths": ["a", "b c"], "nums": [1, 2]}


def test_single_child_for_an_array_param() -> None:
    assert one("<tools><grep><paths>one</paths></grep></tools>", **TYPED).params == {
        "paths": ["one"]
    }
    assert one("<tools><grep><nums>[1, 2]</nums></grep></tools>", **TYPED).params == {
        "nums": [1, 2]
    }


def test_json_text_for_an_object_param() -> None:
    reply = (
        '<tools><grep pattern="p"><opts>{"a": [1, {"b": null}], "c": "<x>"}</opts></grep></tools>'
    )
    assert one(reply, **TYPED).params == {
        "pattern": "p",
        "opts": {"a": [1, {"b": None}], "c": "<x>"},
    }


def test_text_content_is_the_single_required_param() -> None:
    assert one("<tools><grep>TODO|FIXME</grep></tools>", **TYPED).params == {
        "pattern": "TODO|FIXME"
    }
    assert one("<tools><grep><![CDATA[a</grep>b]]></grep></tools>", **TYPED).params == {
        "pattern": "a</grep>b"
    }


def test_scalars_typed_by_schema() -> None:
    reply = '<tools><grep pattern="10" max="25" ratio="0.5" ci="true"/></tools>'
    assert one(reply, **TYPED).params == {"pattern": "10", "max": 25, "ratio": 0.5, "ci": True}
    reply = '<tools><grep pattern="x" max="3.0" ratio="2" ci="no"/></tools>'
    assert one(reply, **TYPED).params == {"pattern": "x", "max": 3, "ratio": 2, "ci": False}


def test_untyped_params_stay_text() -> None:
    reply = '<tools><other n="10" flag="true"><x>1.5</x></other></tools>'
    assert one(reply, **TYPED).params == {"n": "10", "flag": "true", "x": "1.5"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('<grep pattern="x" max="five"/>', "<grep>.max: expected an integer, got 'five'"),
        ('<grep pattern="x" max="1.5"/>', "<grep>.max: expected an integer, got '1.5'"),
        (
            '<grep pattern="x" ci="maybe"/>',
            "<grep>.ci: expected a boolean (true or false), got 'maybe'",
        ),
        ('<grep pattern="x" ratio="lots"/>', "<grep>.ratio: expected a number, got 'lots'"),
        (
            "<grep><nums>1</nums><nums>x</nums></grep>",
            "<grep>.nums[1]: expected an integer, got 'x'",
        ),
        ("<grep><opts>[1]</opts></grep>", "<grep>.opts: expected a JSON object, got list"),
        ("<grep><opts>{bad</opts></grep>", "<grep>.opts: expected a JSON object"),
        (
            "<grep><pattern>a</pattern><pattern>b</pattern></grep>",
            "<grep>.pattern: given 2 times, but it takes a single value",
        ),
        (
            '<grep pattern="a"><pattern>b</pattern></grep>',
            "<grep>.pattern: given both as an attribute and as a child element",
        ),
        ('<grep pattern="a">b</grep>', "<grep>.pattern: given both as an attribute and as text"),
        (
            '<grep><pattern x="1">a</pattern></grep>',
            "<grep>.pattern: a parameter element takes its value as text, not attributes",
        ),
    ],
)
def test_bad_params_name_the_parameter(body: str, message: str) -> None:
    call = one(f"<tools>{body}</tools>", **TYPED)
    assert (call.name, call.params, call.error_code) == ("grep", {}, "malformed_call")
    assert call.error is not None and call.error.startswith(message), call.error


def test_text_content_without_a_single_required_param_is_an_error() -> None:
    call = one("<tools><other>just text</other></tools>")
    assert call.error is not None
    assert call.error.startswith("<other>: text directly inside the element is not a parameter")


def test_read_with_files_and_search() -> None:
    reply = (
        '<tools><read><file src="src/"/><search pattern="def \\w+" path="src"/>'
        '<file src="a.py"/></read></tools>'
    )
    assert one(reply).params == {
        "files": [{"src": "src/"}, {"src": "a.py"}],
        "searches": [{"pattern": "def \\w+", "path": "src"}],
    }


def test_get_value_without_note() -> None:
    assert one('<tools><get_value key="K" reason="why"/></tools>').params == {
        "key": "K",
        "reason": "why",
    }


# -- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "name", "message"),
    [
        (
            "<tools><command>ls -la",
            "command",
            "unclosed <command>: the reply ended before </command>",
        ),
        ("<tools><input>y", "input", "unclosed <input>: the reply ended before </input>"),
        ('<tools><grep pattern="x">', "grep", "unclosed <grep>: the reply ended before </grep>"),
        (
            '<tools><grep pattern="x',
            "grep",
            "unclosed <grep>: the reply ended inside its start tag",
        ),
        (
            '<tools><edit><file src="a"><find>x',
            "edit",
            "unclosed <find>: the reply ended before </find>",
        ),
        (
            '<tools><edit><file src="a"><find>x</find><replace>y</replace>',
            "edit",
            'unclosed <file src="a">',
        ),
        (
            '<tools><edit><file src="a"><find>x</find><replace>y</replace></file>',
            "edit",
            "unclosed <edit>",
        ),
        ('<tools><read><file src="a"/>', "read", "unclosed <read>: the reply ended before </read>"),
    ],
)
def test_unclosed_at_end_of_reply(reply: str, name: str, message: str) -> None:
    call = one(reply)
    assert call.name == name
    assert call.error is not None and message in call.error, call.error
    assert call.error_code == "malformed_call"


def test_a_reply_cut_inside_the_end_tag_of_the_block_is_fine() -> None:
    assert named(parse("toolsxml", "<tools><ctrl>c</ctrl></tools")) == [("ctrl", {"key": "c"})]
    assert named(parse("toolsxml", "<tools><ctrl>c</ctrl>")) == [("ctrl", {"key": "c"})]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '<file src="a"><find>x</find></file>',
            '<file src="a">: <find> #1 has no <replace> after it',
        ),
        (
            '<file src="a"><find>x</find><find>y</find><replace>z</replace></file>',
            '<file src="a">: <find> #1 has no <replace> after it',
        ),
        (
            '<file src="a"><replace>x</replace></file>',
            '<file src="a">: <replace> #1 has no <find> before it',
        ),
        (
            "<file><find>x</find><replace>y</replace></file>",
            "<file> #1 in <edit> needs a src attribute",
        ),
        (
            '<file src=""><find>x</find><replace>y</replace></file>',
            "<file> #1 in <edit> needs a src",
        ),
        ('<file src="a"></file>', '<file src="a"> has no <find>/<replace> pairs'),
        ('<file src="a"/>', '<file src="a"> has no <find>/<replace> pairs'),
        (
            '<file src="a"><find>x</find><with>z</with><replace>y</replace></file>',
            '<file src="a"> may contain only <find> and <replace>, found <with>',
        ),
        (
            '<path>a</path><file src="a"><find>x</find><replace>y</replace></file>',
            "<edit> may contain only <file> elements, found <path>",
        ),
        ("", '<edit> has no <file src="..."> element'),
    ],
)
def test_edit_errors(body: str, message: str) -> None:
    call = one(f"<tools><edit>{body}</edit></tools>")
    assert call.name == "edit"
    assert call.error is not None and call.error.startswith(message), call.error


def test_empty_edit_and_read() -> None:
    assert errors(parse("toolsxml", "<tools><edit/><read/><read><file/></read></tools>")) == [
        ("edit", '<edit/> is empty: put <file src="..."> elements inside', "malformed_call"),
        (
            "read",
            '<read> is empty: put <file src="..."/> or <search pattern="..."/> inside',
            "malformed_call",
        ),
        ("read", "<file> in <read> needs a src attribute", "malformed_call"),
    ]


def test_unknown_child_in_read() -> None:
    call = one('<tools><read><dir src="a"/></read></tools>')
    assert call.error == "<read> may contain only <file> and <search>, found <dir>"


def test_stray_closing_tag() -> None:
    events = parse("toolsxml", "<tools>\n</find>\n<ctrl>c</ctrl>\n</tools>")
    assert [(c.index, c.name, c.error) for c in calls(events)] == [
        (0, "find", "stray </find> inside <tools>: it closes no open element"),
        (1, "ctrl", None),
    ]


def test_an_error_call_does_not_spoil_its_neighbours() -> None:
    reply = (
        "<tools><command>ls</command><edit><file><find>a</find></file></edit><ctrl>c</ctrl></tools>"
    )
    found = calls(parse("toolsxml", reply))
    assert [(c.name, c.ok) for c in found] == [("command", True), ("edit", False), ("ctrl", True)]


def test_second_tools_block_is_refused() -> None:
    reply = (
        "<tools><ctrl>c</ctrl></tools>\nthen\n<tools><command>ls</command><ctrl>d</ctrl></tools>"
    )
    found = calls(parse("toolsxml", reply))
    assert [(c.index, c.name, c.params) for c in found] == [
        (0, "ctrl", {"key": "c"}),
        (1, "command", {"command": "ls"}),
        (2, "ctrl", {"key": "d"}),
    ]
    assert found[0].ok
    for call in found[1:]:
        assert call.error is not None
        assert call.error.startswith("only one <tools> block is allowed per reply")


def test_tools_in_backticks_is_prose() -> None:
    reply = (
        "Use a `<tools>` block with `<command>ls</command>` inside.\n<tools><ctrl>c</ctrl></tools>"
    )
    events = parse("toolsxml", reply)
    assert named(events) == [("ctrl", {"key": "c"})]
    assert texts(events) == {"text": "Use a `<tools>` block with `<command>ls</command>` inside.\n"}


def test_prose_only_and_near_misses() -> None:
    reply = "a < b, <toolsy>, </tools>, <tool> and x<tools_result>y"
    events = parse("toolsxml", reply)
    assert calls(events) == []
    assert texts(events) == {"text": reply}


def test_empty_and_self_closing_blocks() -> None:
    for reply in (
        "<tools/>",
        "<tools />",
        "<tools></tools>",
        "<tools>\n  <!-- nothing -->\n</tools>",
    ):
        events = parse("toolsxml", reply)
        assert calls(events) == [] and texts(events) == {}


def test_reply_cut_inside_the_tools_tag_is_prose() -> None:
    events = parse("toolsxml", 'ok <tools id="')
    assert calls(events) == [] and texts(events) == {"text": 'ok <tools id="'}


def test_text_between_tools_is_not_prose_but_after_the_block_is() -> None:
    events = parse("toolsxml", "A\n<tools>\n  stray words\n  <ctrl>c</ctrl>\n</tools>\nB")
    assert texts(events) == {"text": "A\n\nB"}


def test_ids_count_up_across_replies_of_a_session() -> None:
    state = DialectState()
    first = calls(parse("toolsxml", "<tools><ctrl>c</ctrl><ctrl>d</ctrl></tools>", state=state))
    second = calls(parse("toolsxml", "<tools><ctrl>z</ctrl></tools>", state=state))
    assert [c.id for c in first + second] == ["call_1", "call_2", "call_3"]
    assert [c.index for c in second] == [0]


def test_raw_is_the_source_of_each_call() -> None:
    reply = '<tools>\n  <grep pattern="x"/>\n  <command>\n ls\n</command>\n</tools>'
    assert [c.raw for c in calls(parse("toolsxml", reply))] == [
        '<grep pattern="x"/>',
        "<command>\n ls\n</command>",
    ]


# -- rendering ---------------------------------------------------------------------------

FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def shown(payload: str, *, attribute: bool = False) -> str:
    """What a payload reads as once the result block is parsed back as XML."""
    visible = FORBIDDEN.sub(
        lambda m: (
            f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"
        ),
        payload,
    )
    if attribute:  # lxml writes CR, LF and tab in attributes as character references
        return visible
    return visible.replace("\r\n", "\n").replace("\r", "\n")  # XML end-of-line handling


def parse_results(text: str) -> list[tuple[dict[str, str], str]]:
    root = etree.fromstring(text.encode())
    assert root.tag == "tools_result"
    return [(dict(el.attrib), el.text or "") for el in root]


def test_render_results_layout() -> None:
    a = ToolCall(0, "command", {"command": "ls"}, "call_1")
    b = ToolCall(1, "edit", {}, "call_2", error="bad")
    c = ToolCall(2, "command", {"command": "sleep 9"}, "call_3")
    text = get_dialect("toolsxml").render_results(
        [
            CallOutcome(a, True, "a.py\nb.py\n"),
            CallOutcome(b, False, "<find> #1 has no <replace>", error_code="malformed_call"),
            CallOutcome(c, True, "started", status="running"),
        ]
    )
    assert text == (
        "<tools_result>\n"
        '<result index="0" tool="command" status="ok"><![CDATA[a.py\nb.py\n]]></result>\n'
        '<result index="1" tool="edit" status="error" code="malformed_call">'
        "<![CDATA[<find> #1 has no <replace>]]></result>\n"
        '<result index="2" tool="command" status="running"><![CDATA[started]]></result>\n'
        "</tools_result>"
    )


@settings(max_examples=examples(200), deadline=None)
@given(
    payloads=st.lists(
        st.tuples(
            st.text() | st.sampled_from(["]]>", "]]]]>", "a]]>b]]>c", "<![CDATA[", "\x00\x1b[31m"]),
            st.booleans(),
            st.sampled_from(["", "not_found", "a&b<\"c'"]),
            st.text(max_size=8),
        ),
        max_size=5,
    )
)
def test_render_results_parses_back_exactly(payloads: list[tuple[str, bool, str, str]]) -> None:
    outcomes = [
        CallOutcome(ToolCall(i, name, {}, f"call_{i}"), ok, content, error_code=code or None)
        for i, (content, ok, code, name) in enumerate(payloads)
    ]
    rendered = get_dialect("toolsxml").render_results(outcomes)
    expected = []
    for o in outcomes:
        attrs = {
            "index": str(o.call.index),
            "tool": shown(o.call.name, attribute=True),
            "status": o.status_word,
        }
        if o.error_code and not o.success:
            attrs["code"] = o.error_code
        expected.append((attrs, shown(o.content)))
    assert parse_results(rendered) == expected


def test_render_control_characters_and_unicode() -> None:
    call = ToolCall(0, "command", {}, "call_1")
    text = get_dialect("toolsxml").render_results(
        [CallOutcome(call, True, "\x1b[1mbold\x1b[0m \x00 中文 😀 ]]> end")]
    )
    assert parse_results(text) == [
        (
            {"index": "0", "tool": "command", "status": "ok"},
            "\\x1b[1mbold\\x1b[0m \\x00 中文 😀 ]]> end",
        )
    ]


# -- the prompt side ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("command", {"command": "npm install\nnpm run build"}),
        ("input", {"text": "y\\n"}),
        ("ctrl", {"key": "c"}),
        ("edit", edit_of('if (a < b && c) { x = "&amp;"; }', "Map<K, V>")),
        ("read", {"files": [{"src": "a&b.py"}], "searches": [{"pattern": "TODO", "path": "src"}]}),
        ("get_value", {"key": "NPM_TOKEN", "reason": 'needed for "publish"', "note": "n"}),
        ("grep", {"pattern": "TODO", "path": "src"}),
        ("write_file", {"path": "x.tsx", "content": '<div className="a">{x}</div>\n'}),
    ],
)
def test_format_call_parses_back(name: str, params: dict[str, object]) -> None:
    text = get_dialect("toolsxml").format_call(name, params)
    if not text.lstrip().startswith("<tools"):
        text = f"<tools>\n{text}\n</tools>"
    assert named(parse("toolsxml", text)) == [(name, params)]


def test_instructions_teach_the_rules() -> None:
    text = get_dialect("toolsxml").instructions()
    for needle in ("<tools>", "<tools_result>", "CDATA", "$KARYI{", "&amp;"):
        assert needle in text
