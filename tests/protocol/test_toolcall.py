"""`toolcall`: `<tool_call>` blocks with CDATA, the regex fallback, typing, results."""

from __future__ import annotations

from typing import Any

import pytest
from lxml import etree

from karyi.protocol import CallOutcome, CallStarted, DialectState, ToolCall, get_dialect
from karyi.protocol.coerce import CoerceError, blind, coerce
from karyi.protocol.toolcall import format_tool_result

from ._helpers import calls, named, obj_schema, parse, schemas_of, starts, texts

SCHEMA = obj_schema(
    ["query"],
    query="string",
    count="integer",
    ratio="number",
    fresh="boolean",
    tags={"type": "array", "items": {"type": "string"}},
    ids={"type": "array", "items": {"type": "integer"}},
    opts="object",
    maybe={"type": ["integer", "null"]},
)
TYPED = schemas_of({"search": SCHEMA})


def call_xml(name: str, **params: str) -> str:
    body = "".join(f"<{k}><![CDATA[{v}]]></{k}>" for k, v in params.items())
    return f"<tool_call><name>{name}</name><params>{body}</params></tool_call>"


def test_multiple_calls_with_prose() -> None:
    reply = (
        "First I search.\n"
        + call_xml("search", query="a", count="3")
        + "\nThen I fetch.\n"
        + call_xml("fetch", url="https://x/?a=1&b=2")
        + "\nDone."
    )
    events = parse("toolcall", reply, schemas=TYPED)
    assert named(events) == [
        ("search", {"query": "a", "count": 3}),
        ("fetch", {"url": "https://x/?a=1&b=2"}),
    ]
    assert [c.index for c in calls(events)] == [0, 1]
    assert [c.id for c in calls(events)] == ["call_1", "call_2"]
    assert texts(events) == {"text": "First I search.\n\nThen I fetch.\n\nDone."}
    assert starts(events) == [CallStarted(0, "search"), CallStarted(1, "fetch")]


def test_cdata_keeps_anything() -> None:
    code = 'if (a < b && c > d) { x = "&amp;"; } </tool_call> </params> <name>'
    events = parse("toolcall", call_xml("write", content=code, path="a.c"))
    assert named(events) == [("write", {"content": code, "path": "a.c"})]


def test_cdata_with_split_end_marker() -> None:
    reply = (
        "<tool_call><name>w</name><params><c><![CDATA[a]]]]><![CDATA[>b]]></c></params></tool_call>"
    )
    assert named(parse("toolcall", reply)) == [("w", {"c": "a]]>b"})]


def test_escaped_text_without_cdata_is_decoded() -> None:
    reply = "<tool_call><name>w</name><params><q>a &amp; b &lt;c&gt;</q></params></tool_call>"
    assert named(parse("toolcall", reply)) == [("w", {"q": "a & b <c>"})]


def test_markup_value_without_cdata_is_kept_as_written() -> None:
    reply = (
        "<tool_call><name>w</name><params>"
        "<content><p>Hello <b>you</b></p></content><path>i.html</path>"
        "</params></tool_call>"
    )
    assert named(parse("toolcall", reply)) == [
        ("w", {"content": "<p>Hello <b>you</b></p>", "path": "i.html"})
    ]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ("<q>a & b</q>", {"q": "a & b"}),  # unescaped &
        ("<q>if a < b then</q>", {"q": "if a < b then"}),  # unescaped <
        ("<q>x</q><r>a &nbsp; b</r>", {"q": "x", "r": "a &nbsp; b"}),  # undefined entity
        ("<q><![CDATA[a & b]]></q><r>1 < 2</r>", {"q": "a & b", "r": "1 < 2"}),
        ("<q>\n  <![CDATA[spaced]]>\n</q><r>x&y</r>", {"q": "spaced", "r": "x&y"}),
    ],
)
def test_malformed_xml_falls_back_to_regex(params: str, expected: dict[str, Any]) -> None:
    reply = f"<tool_call>\n  <name>w</name>\n  <params>{params}</params>\n</tool_call>"
    assert named(parse("toolcall", reply)) == [("w", expected)]


def test_fallback_name_in_cdata() -> None:
    reply = "<tool_call><name><![CDATA[w]]></name><params><q>a & b</q></params></tool_call>"
    assert named(parse("toolcall", reply)) == [("w", {"q": "a & b"})]


def test_malformed_call_does_not_spoil_the_next() -> None:
    reply = "<tool_call><name>a</name><params><q>x & y</q></params></tool_call>" + call_xml(
        "b", q="z"
    )
    assert named(parse("toolcall", reply)) == [("a", {"q": "x & y"}), ("b", {"q": "z"})]


@pytest.mark.parametrize(
    "reply",
    [
        "<tool_call><params><q>x</q></params></tool_call>",
        "<tool_call><name></name><params/></tool_call>",
        "<tool_call><name>  </name></tool_call>",
        "<tool_call><name>w<name><params></params></tool_call>",
        "<tool_call></tool_call>",
    ],
)
def test_missing_name(reply: str) -> None:
    events = parse("toolcall", reply)
    [call] = calls(events)
    assert (call.name, call.params, call.error_code) == ("", {}, "malformed_call")
    assert call.error == "<tool_call> has no <name>: write <name>TOOL</name>"
    assert starts(events) == []


def test_unclosed_call() -> None:
    reply = "Let me search: <tool_call><name>search</name><params><query><![CDATA[x"
    events = parse("toolcall", reply)
    [call] = calls(events)
    assert call.name == "search" and call.params == {}
    assert call.error == "unclosed <tool_call>: the reply ended before </tool_call>"
    assert call.raw == reply[len("Let me search: ") :]
    assert texts(events) == {"text": "Let me search: "}


def test_name_and_params_are_trimmed_sensibly() -> None:
    reply = "<tool_call>\n  <name>\n    search\n  </name>\n  <params/>\n</tool_call>"
    assert named(parse("toolcall", reply)) == [("search", {})]


def test_no_params_element() -> None:
    assert named(parse("toolcall", "<tool_call><name>ping</name></tool_call>")) == [("ping", {})]


def test_comments_in_params_are_ignored() -> None:
    reply = "<tool_call><name>w</name><params><!-- c --><q>1</q></params></tool_call>"
    assert named(parse("toolcall", reply)) == [("w", {"q": 1})]


# -- typing ------------------------------------------------------------------------------


def test_typed_by_schema() -> None:
    reply = call_xml(
        "search",
        query="123",
        count=" 7 ",
        ratio="2.5",
        fresh="False",
        tags="solo",
        opts='{"a": [1, null]}',
        maybe="null",
    )
    assert named(parse("toolcall", reply, schemas=TYPED)) == [
        (
            "search",
            {
                "query": "123",
                "count": 7,
                "ratio": 2.5,
                "fresh": False,
                "tags": ["solo"],
                "opts": {"a": [1, None]},
                "maybe": None,
            },
        )
    ]


def test_repeated_param_is_a_list() -> None:
    reply = (
        "<tool_call><name>search</name><params>"
        "<ids>1</ids><ids>2</ids><tags>a</tags><tags>b</tags><x>1</x><x>y</x>"
        "</params></tool_call>"
    )
    assert named(parse("toolcall", reply, schemas=TYPED)) == [
        ("search", {"ids": [1, 2], "tags": ["a", "b"], "x": [1, "y"]})
    ]


def test_json_array_text_for_an_array_param() -> None:
    reply = call_xml("search", ids="[1, 2, 3]", tags='["x", "y"]')
    assert named(parse("toolcall", reply, schemas=TYPED)) == [
        ("search", {"ids": [1, 2, 3], "tags": ["x", "y"]})
    ]


def test_blind_rule_only_where_the_schema_is_silent() -> None:
    reply = call_xml("search", query="true", extra="true", n="12", f="1.5", s=" hi ")
    assert named(parse("toolcall", reply, schemas=TYPED)) == [
        ("search", {"query": "true", "extra": True, "n": 12, "f": 1.5, "s": " hi "})
    ]


@pytest.mark.parametrize(
    ("param", "value", "message"),
    [
        ("count", "ten", "search.count: expected an integer, got 'ten'"),
        ("count", "1.5", "search.count: expected an integer, got '1.5'"),
        ("ratio", "fast", "search.ratio: expected a number, got 'fast'"),
        ("fresh", "maybe", "search.fresh: expected a boolean (true or false), got 'maybe'"),
        ("opts", "[1]", "search.opts: expected a JSON object, got list"),
        ("opts", "{x}", "search.opts: expected a JSON object, Expecting property name"),
        ("ids", "[1, oops]", "search.ids: expected a JSON array, Expecting value at 4"),
        ("maybe", "many", "search.maybe: expected one of integer, null, got 'many'"),
    ],
)
def test_bad_types_name_the_parameter(param: str, value: str, message: str) -> None:
    events = parse("toolcall", call_xml("search", **{param: value}), schemas=TYPED)
    [call] = calls(events)
    assert (call.name, call.params, call.error_code) == ("search", {}, "malformed_call")
    assert call.error is not None and call.error.startswith(message), call.error


def test_bad_item_in_repeated_param() -> None:
    reply = "<tool_call><name>search</name><params><ids>1</ids><ids>two</ids></params></tool_call>"
    [call] = calls(parse("toolcall", reply, schemas=TYPED))
    assert call.error == "search.ids[1]: expected an integer, got 'two'"


# -- prompt and results ----------------------------------------------------------------------


def test_format_call_exact_layout() -> None:
    text = get_dialect("toolcall").format_call(
        "search",
        {"query": "a ]]> b", "count": 3, "fresh": True, "tags": ["x"], "opts": {"k": "v"}},
    )
    assert text == (
        "<tool_call>\n"
        "  <name>search</name>\n"
        "  <params>\n"
        "    <query><![CDATA[a ]]]]><![CDATA[> b]]></query>\n"
        "    <count><![CDATA[3]]></count>\n"
        "    <fresh><![CDATA[true]]></fresh>\n"
        '    <tags><![CDATA[["x"]]]></tags>\n'
        '    <opts><![CDATA[{"k": "v"}]]></opts>\n'
        "  </params>\n"
        "</tool_call>"
    )
    assert named(parse("toolcall", text, schemas=TYPED)) == [
        (
            "search",
            {"query": "a ]]> b", "count": 3, "fresh": True, "tags": ["x"], "opts": {"k": "v"}},
        )
    ]


def outcome(success: bool, content: str, **kw: Any) -> CallOutcome:
    return CallOutcome(ToolCall(0, kw.pop("name", "search"), {}, "call_1"), success, content, **kw)


def test_format_tool_result_success() -> None:
    assert format_tool_result(outcome(True, "3 results\n]]> <b>")) == (
        "<tool_result>\n"
        "  <name>search</name>\n"
        "  <status>success</status>\n"
        "  <result><![CDATA[3 results\n]]]]><![CDATA[> <b>]]></result>\n"
        "</tool_result>"
    )


def test_format_tool_result_error() -> None:
    assert format_tool_result(outcome(False, "boom", error_code="not_found")) == (
        "<tool_result>\n"
        "  <name>search</name>\n"
        "  <status>error</status>\n"
        '  <error code="not_found"><![CDATA[boom]]></error>\n'
        "</tool_result>"
    )
    assert format_tool_result(outcome(False, "boom")).splitlines()[3] == (
        "  <error><![CDATA[boom]]></error>"
    )


def test_format_tool_result_running_status() -> None:
    assert "<status>running</status>" in format_tool_result(outcome(True, "...", status="running"))


@pytest.mark.parametrize("name", ["search", "a&b", "x<y>", "q\"'", "bell\x07"])
def test_results_are_well_formed_xml(name: str) -> None:
    text = get_dialect("toolcall").render_results(
        [
            outcome(True, "ok \x00 ]]> 中文", name=name),
            outcome(False, "no", name=name, error_code='a"&<b'),
        ]
    )
    root = etree.fromstring(f"<r>{text}</r>".encode())
    shown = name.replace("\x07", "\\x07")
    assert [
        (el.findtext("name"), el.findtext("status"), el.findtext("result"), el.findtext("error"))
        for el in root
    ] == [
        (shown, "success", "ok \\x00 ]]> 中文", None),
        (shown, "error", None, "no"),
    ]
    assert root[1].find("error").get("code") == 'a"&<b'  # type: ignore[union-attr]


def test_ids_continue_across_replies() -> None:
    state = DialectState()
    first = calls(parse("toolcall", call_xml("a") + call_xml("b"), state=state))
    second = calls(parse("toolcall", call_xml("c"), state=state))
    assert [c.id for c in first + second] == ["call_1", "call_2", "call_3"]


def test_instructions_mention_cdata() -> None:
    text = get_dialect("toolcall").instructions()
    assert "<tool_call>" in text and "CDATA" in text and "<tool_result>" in text


def test_a_number_of_thousands_of_digits_is_refused_or_text_never_a_crash() -> None:
    huge = "9" * 5000
    assert blind(huge) == huge  # untyped: not a number here, so it stays text
    with pytest.raises(
        CoerceError, match=r"n: expected an integer, got '9+'… \(5,000 characters\)"
    ):
        coerce(huge, {"type": "integer"}, "n")
