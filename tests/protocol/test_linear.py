"""Work is linear in the reply length: the scanner never holds on to text it has read.

No timing: a parser that re-scanned the reply on every chunk would have to keep it
buffered, so it is enough to watch the scanner's buffer while a 200 KB reply streams
in 8-character chunks, whatever the reply is made of (long prose, long raw code, long
CDATA, long JSON strings full of escapes, long attributes, runs of partial
delimiters).
"""

from __future__ import annotations

import json

import pytest

from karyi.protocol import ParseEvent, get_dialect
from karyi.protocol.base import ScannerParser
from karyi.protocol.native import NativeParser

from ._helpers import calls, split_at, texts

CHUNK = 8
BOUND = 100  # longest delimiter + lookahead/lookbehind + one chunk, with room to spare
SIZE = 200_000


def stream(dialect: str, text: str) -> tuple[list[ParseEvent], int]:
    """Feed `text` in CHUNK-sized pieces; the events and the largest buffer seen."""
    parser = get_dialect(dialect).parser()
    assert isinstance(parser, ScannerParser)
    events: list[ParseEvent] = []
    worst = 0
    for i in range(0, len(text), CHUNK):
        events += parser.feed(text[i : i + CHUNK])
        worst = max(worst, len(parser.sc.buf))
    events += parser.close()
    return events, worst


def filler(pattern: str, size: int = SIZE // 5) -> str:
    return (pattern * (size // len(pattern) + 1))[:size]


# Runs of near-delimiters that a careless scanner would keep buffering.
NEAR = '< </ <t <to <too <tool <tools_ ]] ]]] <![CDA </fin </replac \\ \\\\ " ` '


def test_toolsxml_buffer_stays_small() -> None:
    prose = filler("Prose with a < b and `<tools>` and " + NEAR) + "."
    script = filler("echo $KARYI{T} > out 2>&1 <in && " + NEAR.replace("</", "<"))
    find = filler("if (a<b && c>d) { x = <div/>; } " + NEAR.replace("</fin", ""))
    cdata_body = filler("]]]]><![CDATA[> ]] ] > " + NEAR.replace("]]", "]"))
    attr = "a&amp;b &quot; > / " * 2000
    reply = (
        prose
        + "\n<tools>\n<command>\n"
        + script
        + "\n</command>\n"
        + f'<edit><file src="a.ts"><find>{find}</find>'
        + f"<replace><![CDATA[{cdata_body}]]></replace></file></edit>\n"
        + f'<grep pattern="{attr}"/>\n'
        + "<!-- "
        + filler("- -- <x> ")
        + " -->\n</tools>\n"
        + prose
    )
    assert len(reply) > SIZE
    events, worst = stream("toolsxml", reply)
    assert worst < BOUND
    assert [(c.name, c.ok) for c in calls(events)] == [
        ("command", True),
        ("edit", True),
        ("grep", True),
    ]
    [command, edit, grep] = calls(events)
    assert command.params == {"command": script}
    assert edit.params["files"][0]["pairs"][0]["find"] == find
    assert grep.params == {"pattern": attr.replace("&amp;", "&").replace("&quot;", '"')}
    assert texts(events) == {"text": prose + "\n\n" + prose}


def test_toolsxml_unclosed_tag_and_unclosed_cdata_stay_small() -> None:
    for reply in (
        "<tools><grep pattern='" + filler('x > y " ', SIZE),
        "<tools><edit><file src='a'><find><![CDATA[" + filler("]] ]> ", SIZE),
        "<tools><input>" + filler("</inpu ", SIZE),
    ):
        events, worst = stream("toolsxml", reply)
        assert worst < BOUND
        assert [c.ok for c in calls(events)] == [False]


def test_agentxml_buffer_stays_small() -> None:
    thinking = filler("I think a < b; </thinkin " + NEAR)
    big = filler('quote " backslash \\ brace } bracket ] tag </tools> ' + NEAR)
    items = [
        {"id": str(i), "name": "write_file", "parameters": {"content": big, "n": i}}
        for i in range(3)
    ]
    answer = filler("The answer </final_answe " + NEAR)
    reply = (
        f"<thinking>{thinking}</thinking>\n<tools>\n```json\n"
        + json.dumps(items, indent=2)
        + "\n```\n</tools>\n"
        + f"<final_answer>{answer}</final_answer>"
    )
    events, worst = stream("agentxml", reply)
    assert worst < BOUND
    assert [(c.id, c.params) for c in calls(events)] == [
        (str(i), {"content": big, "n": i}) for i in range(3)
    ]
    assert texts(events) == {"thinking": thinking, "text": "\n\n", "answer": answer}


def test_agentxml_string_of_escapes_stays_small() -> None:
    value = "\\" * (SIZE // 4) + '"' * (SIZE // 4)
    reply = (
        "<tools>[" + json.dumps({"id": "1", "name": "a", "parameters": {"v": value}}) + "]</tools>"
    )
    events, worst = stream("agentxml", reply)
    assert worst < BOUND
    assert [c.params for c in calls(events)] == [{"v": value}]


def test_toolcall_buffer_stays_small() -> None:
    prose = filler("Text with <tool_result> and " + NEAR.replace("<tool", "<too")) + "."
    value = filler("]]]]><![CDATA[> </tool_call> <x> & " + NEAR)
    plain = filler("a &amp; b &lt; c ")
    reply = (
        prose
        + "<tool_call>\n  <name>write</name>\n  <params>\n"
        + f"    <content><![CDATA[{value}]]></content>\n"
        + f"    <other>{plain}</other>\n"
        + "  </params>\n</tool_call>"
        + prose
    )
    events, worst = stream("toolcall", reply)
    assert worst < BOUND
    [call] = calls(events)
    assert call.params == {
        "content": value.replace("]]]]><![CDATA[>", "]]>"),
        "other": plain.replace("&amp;", "&").replace("&lt;", "<"),
    }
    assert texts(events) == {"text": prose + prose}


@pytest.mark.parametrize("dialect", ["toolsxml", "agentxml", "toolcall"])
def test_prose_only_reply_is_passed_through_as_it_streams(dialect: str) -> None:
    """Text is not held back until the end: each feed releases all but a short tail."""
    text = filler("plain words and a < b ", SIZE)
    parser = get_dialect(dialect).parser()
    released = 0
    for i, chunk in enumerate(split_at(text, range(CHUNK, len(text), CHUNK))):
        released += sum(len(e.text) for e in parser.feed(chunk) if hasattr(e, "text"))
        assert (i + 1) * CHUNK - released < BOUND
    released += sum(len(e.text) for e in parser.close() if hasattr(e, "text"))
    assert released == len(text)


def test_native_long_arguments_in_small_fragments() -> None:
    args = json.dumps({"content": filler('x\\"{}[] ', SIZE)})
    parser = get_dialect("native").parser()
    assert isinstance(parser, NativeParser)
    events: list[ParseEvent] = parser.feed_call(0, call_id="c", name="write")
    for piece in split_at(args, range(CHUNK, len(args), CHUNK)):
        events += parser.feed_call(0, arguments=piece)
    events += parser.close()
    assert [c.params for c in calls(events)] == [json.loads(args)]
