"""`agentxml`: the JSON array in `<tools>`, model slips, ids, channels, results."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from karyi.protocol import CallOutcome, DialectState, ToolCall, get_dialect

from ._helpers import calls, parse, texts


def got(reply: str, state: DialectState | None = None) -> list[tuple[Any, ...]]:
    return [
        (c.index, c.id, c.name, c.params, c.error, c.error_code)
        for c in calls(parse("agentxml", reply, state=state))
    ]


def ok(index: int, call_id: str, name: str, params: dict[str, Any]) -> tuple[Any, ...]:
    return (index, call_id, name, params, None, "")


READ = '{"id": "1", "name": "read_file", "parameters": {"filePath": "a.txt"}}'
READ_OK = ok(0, "1", "read_file", {"filePath": "a.txt"})


@pytest.mark.parametrize(
    "block",
    [
        f"[{READ}]",
        f"\n[\n  {READ}\n]\n",
        f"```json\n[{READ}]\n```",
        f"\n```\n[{READ}]\n```\n",
        f"```JSON\n[\n{READ}\n]\n```",
        f"[{READ},]",  # trailing comma in the array
        '[{"id": "1", "name": "read_file", "parameters": {"filePath": "a.txt",},},]',
        READ,  # a single bare object
        f"```json\n{READ}\n```",
        '[{"id": 1, "name": "read_file", "parameters": {"filePath": "a.txt"}}]',  # integer id
        '[{"id": "1", "name": "read_file", "params": {"filePath": "a.txt"}}]',
        '[{"id": "1", "name": "read_file", "arguments": {"filePath": "a.txt"}}]',
        '[{"id": "1", "name": "read_file", "input": {"filePath": "a.txt"}}]',
        '[{"id": "1", "name": "read_file", "parameters": "{\\"filePath\\": \\"a.txt\\"}"}]',
        '[{"name": "read_file", "id": "1", "extra": true, "parameters": {"filePath": "a.txt"}}]',
    ],
)
def test_tolerated_forms(block: str) -> None:
    assert got(f"<tools>{block}</tools>") == [READ_OK]


def test_missing_parameters_means_none() -> None:
    assert got('<tools>[{"id": "1", "name": "get_system_info"}]</tools>') == [
        ok(0, "1", "get_system_info", {})
    ]
    assert got('<tools>[{"id": "1", "name": "x", "parameters": ""}]</tools>') == [
        ok(0, "1", "x", {})
    ]


def test_several_calls_and_strings_with_json_and_tags_inside() -> None:
    reply = (
        "<tools>\n[\n"
        '  {"id": "a", "name": "write_file", "parameters": {"filePath": "x.html",'
        ' "content": "<tools>}]</tools> {\\"k\\": [1,]}\\n\\\\"}},\n'
        '  {"id": "b", "name": "run_command", "parameters": {"command": "ls"}}\n'
        "]\n</tools>"
    )
    assert got(reply) == [
        ok(
            0,
            "a",
            "write_file",
            {"filePath": "x.html", "content": '<tools>}]</tools> {"k": [1,]}\n\\'},
        ),
        ok(1, "b", "run_command", {"command": "ls"}),
    ]


def test_duplicate_id_in_one_reply() -> None:
    reply = (
        '<tools>[{"id": "1", "name": "a"}, {"id": "1", "name": "b"}, {"id": 1, "name": "c"}]'
        "</tools>"
    )
    message = 'id "1" was already used in this session; give every call a new, unique id'
    assert got(reply) == [
        ok(0, "1", "a", {}),
        (1, "1", "b", {}, f"tools[1]: {message}", "duplicate_id"),
        (2, "1", "c", {}, f"tools[2]: {message}", "duplicate_id"),
    ]


def test_duplicate_id_across_replies() -> None:
    state = DialectState()
    assert got('<tools>[{"id": "1", "name": "a"}]</tools>', state) == [ok(0, "1", "a", {})]
    second = got('<tools>[{"id": "2", "name": "b"}, {"id": "1", "name": "c"}]</tools>', state)
    assert second[0] == ok(0, "2", "b", {})
    assert second[1][1:3] == ("1", "c") and second[1][5] == "duplicate_id"
    # Without a shared state, replies are independent.
    assert got('<tools>[{"id": "1", "name": "a"}]</tools>') == [ok(0, "1", "a", {})]


@pytest.mark.parametrize(
    ("item", "name", "message"),
    [
        ('{"name": "a"}', "a", 'tools[0]: "id" is missing (a string unique in this session)'),
        ('{"id": "", "name": "a"}', "a", 'tools[0]: "id" is missing'),
        ('{"id": null, "name": "a"}', "a", 'tools[0]: "id" is missing'),
        (
            '{"id": true, "name": "a"}',
            "a",
            'tools[0]: "id" must be a string unique in this session, got true',
        ),
        (
            '{"id": [1], "name": "a"}',
            "a",
            'tools[0]: "id" must be a string unique in this session, got [1]',
        ),
        ('{"id": "1"}', "", 'tools[0]: "name" is missing (the tool name, a string)'),
        ('{"id": "1", "name": 5}', "", 'tools[0]: "name" is missing'),
        (
            '{"id": "1", "name": "a", "parameters": [1]}',
            "a",
            'tools[0]: "parameters" must be an object, got list',
        ),
        (
            '{"id": "1", "name": "a", "parameters": 3}',
            "a",
            'tools[0]: "parameters" must be an object, got int',
        ),
        (
            '{"id": "1", "name": "a", "parameters": "nope"}',
            "a",
            'tools[0]: "parameters" is a string that is not JSON '
            "(Expecting value at line 1 column 1)",
        ),
    ],
)
def test_bad_call_objects(item: str, name: str, message: str) -> None:
    [call] = calls(parse("agentxml", f"<tools>[{item}]</tools>"))
    assert call.name == name and call.params == {} and call.error_code == "malformed_call"
    assert call.error is not None and call.error.startswith(message), call.error


def test_both_id_and_name_missing_reports_both() -> None:
    [call] = calls(parse("agentxml", "<tools>[{}]</tools>"))
    assert call.error == (
        'tools[0]: "id" is missing (a string unique in this session); '
        'tools[0]: "name" is missing (the tool name, a string)'
    )


def test_a_bad_call_does_not_spoil_the_others() -> None:
    reply = '<tools>[{"id": "1", "name": "a"}, {"name": "b"}, {"id": "3", "name": "c"}]</tools>'
    assert [(c.index, c.name, c.ok) for c in calls(parse("agentxml", reply))] == [
        (0, "a", True),
        (1, "b", False),
        (2, "c", True),
    ]


def test_invalid_json_gives_line_and_column() -> None:
    reply = '<tools>[\n{"id": "1", "name": "a",\n "parameters": {"q": tru}}\n]</tools>'
    [call] = calls(parse("agentxml", reply))
    assert call.error == "tools[0]: not valid JSON (Expecting value at line 2 column 22)"
    assert call.raw == '{"id": "1", "name": "a",\n "parameters": {"q": tru}}'


def test_single_quotes_are_not_json() -> None:
    [call] = calls(parse("agentxml", "<tools>[{'id': '1', 'name': 'a'}]</tools>"))
    assert call.error is not None and call.error.startswith("tools[0]: not valid JSON (")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ('"hello"', "the <tools> block must hold a JSON array of calls like"),
        ("read_file a.txt", "the <tools> block must hold a JSON array of calls like"),
        ("[1, 2]", "tools[0]: expected a call object {...} or ']', found '1'"),
        (
            '[{"id": "1", "name": "a"}, "x"]',
            "tools[1]: expected a call object {...} or ']', found '\"'",
        ),
        ('[["a"]]', "tools[0]: expected a call object {...} or ']', found '['"),
    ],
)
def test_not_an_array_of_objects(block: str, message: str) -> None:
    bad = [c for c in calls(parse("agentxml", f"<tools>{block}</tools>")) if not c.ok]
    assert len(bad) == 1
    assert bad[0].error is not None and bad[0].error.startswith(message), bad[0].error


def test_empty_blocks_hold_no_calls() -> None:
    for block in ("", "\n", "[]", "[\n]", "```json\n[]\n```"):
        events = parse("agentxml", f"<tools>{block}</tools>")
        assert calls(events) == [] and texts(events) == {}, block


def test_reply_ends_inside_a_call() -> None:
    [call] = calls(parse("agentxml", '<tools>[{"id": "1", "name": "a", "parameters": {"q": "x'))
    assert call.error == "tools[0]: the reply ended inside this call's JSON"


def test_reply_ends_after_a_complete_call_but_before_the_array_closes() -> None:
    """The calls that were complete are kept; the missing `]` is not an error (open
    question in the report: should it be?)."""
    assert got('<tools>[{"id": "1", "name": "a"}') == [ok(0, "1", "a", {})]
    assert got('<tools>[{"id": "1", "name": "a"},\n') == [ok(0, "1", "a", {})]
    assert got("<tools>[") == []


def test_channels() -> None:
    reply = (
        "Let me think.\n<thinking>I need <b>x</b> & y</thinking>\n"
        '<tools>[{"id": "1", "name": "a"}]</tools>\n'
        "<final_answer>It is 42 < 43.</final_answer>\nbye"
    )
    events = parse("agentxml", reply)
    assert texts(events) == {
        "text": "Let me think.\n\n\n\nbye",
        "thinking": "I need <b>x</b> & y",
        "answer": "It is 42 < 43.",
    }
    kinds = [type(e).__name__ + ":" + getattr(e, "channel", "") for e in events]
    assert kinds == [
        "TextDelta:text",
        "TextDelta:thinking",
        "TextDelta:text",
        "CallStarted:",
        "CallReady:",
        "TextDelta:text",
        "TextDelta:answer",
        "TextDelta:text",
    ]


def test_unclosed_thinking_runs_to_the_end() -> None:
    assert texts(parse("agentxml", "<thinking>hmm <tools>[]</tools>")) == {
        "thinking": "hmm <tools>[]</tools>"
    }


def test_tags_in_backticks_are_prose() -> None:
    reply = "Use `<tools>` and `<thinking>` tags."
    events = parse("agentxml", reply)
    assert calls(events) == [] and texts(events) == {"text": reply}


def test_tools_result_written_by_the_model_is_prose() -> None:
    reply = '<tools_result>[{"id": "1", "result": "x"}]</tools_result>'
    events = parse("agentxml", reply)
    assert calls(events) == [] and texts(events) == {"text": reply}


def test_raw_is_the_json_of_the_call() -> None:
    reply = '<tools>[ {"id": "1",\n "name": "a"} , {"id": "2", "name": "b"}]</tools>'
    assert [c.raw for c in calls(parse("agentxml", reply))] == [
        '{"id": "1",\n "name": "a"}',
        '{"id": "2", "name": "b"}',
    ]


# -- results -----------------------------------------------------------------------------


def result_items(text: str) -> list[dict[str, Any]]:
    m = re.fullmatch(r"<tools_result>\n(.*)\n</tools_result>", text, re.S)
    assert m is not None, text
    items = json.loads(m.group(1))
    assert isinstance(items, list)
    return items


def test_render_results() -> None:
    a = ToolCall(0, "read_file", {}, "1")
    b = ToolCall(1, "delete_file", {}, "2")
    c = ToolCall(2, "search_web", {}, "3")
    d = ToolCall(3, "run_command", {}, "4")
    e = ToolCall(4, "x", {}, "5")
    text = get_dialect("agentxml").render_results(
        [
            CallOutcome(a, True, 'line 1\n</tools_result> ]]> "q"'),
            CallOutcome(b, False, "no such file: b.txt", error_code="not_found"),
            CallOutcome(c, True, "2 results", data={"results": [{"title": "Eiffel", "m": 330}]}),
            CallOutcome(d, True, "still going", status="running"),
            CallOutcome(e, False, "bad", error_code=None),
        ]
    )
    items = result_items(text)
    assert [sorted(i) for i in items] == [["id", "result"]] * 5
    assert all(isinstance(i["result"], str) for i in items)
    assert [(i["id"], json.loads(i["result"])) for i in items] == [
        ("1", {"success": True, "data": 'line 1\n</tools_result> ]]> "q"'}),
        ("2", {"success": False, "error": "no such file: b.txt", "code": "not_found"}),
        ("3", {"success": True, "data": {"results": [{"title": "Eiffel", "m": 330}]}}),
        ("4", {"success": True, "data": "still going", "status": "running"}),
        ("5", {"success": False, "error": "bad"}),
    ]
    # The block cannot be closed early by a payload.
    assert text.count("</tools_result>") == 1


def test_render_results_empty() -> None:
    assert result_items(get_dialect("agentxml").render_results([])) == []


def test_format_call_parses_back() -> None:
    params = {
        "filePath": "a.txt",
        "content": "<x>\n}]</tools>",
        "n": 3,
        "deep": {"a": [True, None]},
    }
    text = get_dialect("agentxml").format_call("write_file", params)
    assert got(text) == [ok(0, "1", "write_file", params)]


def test_instructions_mention_ids_and_result_shape() -> None:
    text = get_dialect("agentxml").instructions()
    for needle in ("<thinking>", "<tools>", "<tools_result>", "<final_answer>", '"id"', "success"):
        assert needle in text
