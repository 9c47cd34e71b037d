"""`agentxml`: JSON-in-XML: `<thinking>`, `<tools>[…]</tools>`, `<final_answer>`.

The format is documented in docs/protocol.md ("agentxml — JSON-in-XML").

Each object of the `<tools>` array becomes a call the moment its closing brace
streams in. Ids must be unique across the whole session; a reused id is an error result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Generator, Mapping, Sequence
from typing import Any

from karyi.protocol.base import Dialect, ScannerParser, StreamParser, no_schemas
from karyi.protocol.calls import (
    DUPLICATE_ID,
    CallOutcome,
    DialectState,
    PartialCall,
    SchemaLookup,
)
from karyi.protocol.jsonscan import JsonSlip, balanced, loads_lenient, partial_json
from karyi.protocol.scanner import Scanner

_OPEN = re.compile(r"(?<!`)<(thinking|tools|final_answer)>")
_CHANNEL = {"thinking": "thinking", "final_answer": "answer"}
_PARAM_KEYS = ("parameters", "params", "arguments", "input")
_NEXT_CALL = re.compile(r'[,}]\s*(\{\s*"(?:id|name)"\s*:)')


class AgentXmlParser(ScannerParser):
    """Streaming parser for Agent XML replies."""

    def __init__(self, schemas: SchemaLookup, state: DialectState | None) -> None:
        super().__init__(schemas, state)
        self._item_parts: list[str] | None = None  # the call object being read

    def run(self) -> Generator[None, None, None]:
        """Prose and the three tags, until the reply ends."""
        sc = self.sc
        while True:
            m = yield from sc.until_re(_OPEN, len("<final_answer>"), self.text)
            if m is None:
                return
            tag = m.group(1)
            if tag == "tools":
                yield from self._tools()
                continue
            channel = _CHANNEL[tag]
            yield from sc.until(f"</{tag}>", lambda t, c=channel: self.text(t, c))  # type: ignore[misc]

    def _tools(self) -> Generator[None, None, None]:
        sc = self.sc
        yield from sc.skip_space()
        head = yield from sc.peek(3)
        if head == "```":
            yield from sc.until("\n")
            yield from sc.skip_space()
        first = yield from sc.peek(1)
        if first == "{":
            yield from self._item(0)
        elif first == "[":
            sc.consume(sc.pos + 1)
            yield from self._array()
        elif first and not (yield from _at(sc, "</tools>")):
            sc.start_recording()
            yield from sc.until("</tools>")
            raw = sc.stop_recording()
            self._error(
                "?",
                raw,
                "the <tools> block must hold a JSON array of calls like "
                '[{"id": "1", "name": "read_file", "parameters": {...}}], '
                f"but it starts with {first!r}",
            )
            return
        yield from sc.until("</tools>")

    def _array(self) -> Generator[None, None, None]:
        sc = self.sc
        n = 0
        while True:
            yield from sc.skip_space()
            c = yield from sc.peek(1)
            if c == ",":
                sc.consume(sc.pos + 1)
                continue
            if c == "]":
                sc.consume(sc.pos + 1)
                return
            if c == "{":
                yield from self._item(n)
                n += 1
                continue
            if not c:
                return
            sc.start_recording()
            yield from sc.until("</tools>")
            raw = sc.stop_recording()
            self._error("?", raw, f"tools[{n}]: expected a call object {{...}} or ']', found {c!r}")
            return

    def partial(self) -> PartialCall | None:
        """See `StreamParser.partial`: the call object being written, once its name is."""
        if self._item_parts is None:
            return None
        obj, opened = partial_json("".join(self._item_parts))
        name = obj.get("name") if isinstance(obj, dict) else None
        if not isinstance(obj, dict) or not isinstance(name, str) or opened[:1] == ("name",):
            return None
        call_id = str(obj.get("id") or "")
        key = next((k for k in _PARAM_KEYS if isinstance(obj.get(k), dict)), None)
        if key is None:
            return PartialCall(self._index, name, {}, (), call_id)
        inner = opened[1:] if opened[:1] == (key,) else ()
        return PartialCall(self._index, name, obj[key], inner, call_id)

    def _item(self, n: int) -> Generator[None, None, None]:
        self.sc.start_recording()
        self._item_parts = []
        try:
            text = yield from balanced(self.sc, self._item_parts)
        finally:
            self._item_parts = None
        consumed = self.sc.stop_recording()
        where = f"tools[{n}]"
        if text is None:
            raw = self._recover(consumed)
            self._error("?", raw, f"{where}: the reply ended inside this call's JSON")
            return
        try:
            obj = loads_lenient(text)
        except JsonSlip as exc:
            self._error("?", self._recover(text), f"{where}: not valid JSON ({exc})")
            return
        self._call(obj, text, where)

    def _recover(self, text: str) -> str:
        """A broken call object that swallowed the calls after it (a missing `}`) ends
        where the next one starts; that text is read again. The broken call's text."""
        m = _NEXT_CALL.search(text, 1)
        if m is not None and self.resume(text[m.start(1) :]):
            return text[: m.start(1)]
        return text

    def _call(self, obj: Any, raw: str, where: str) -> None:
        if not isinstance(obj, dict):
            self._error("?", raw, f"{where}: expected an object, got {type(obj).__name__}")
            return
        raw_id = obj.get("id")
        valid_id = isinstance(raw_id, str | int) and not isinstance(raw_id, bool)
        call_id = str(raw_id) if valid_id and str(raw_id) else None
        name = obj.get("name")
        problems: list[str] = []
        if call_id is None and raw_id not in (None, ""):
            problems.append(
                f'{where}: "id" must be a string unique in this session, got {json.dumps(raw_id)}'
            )
        elif call_id is None:
            problems.append(f'{where}: "id" is missing (a string unique in this session)')
        if not isinstance(name, str) or not name:
            problems.append(f'{where}: "name" is missing (the tool name, a string)')
        params: Any = next((obj[k] for k in _PARAM_KEYS if k in obj), {})
        if isinstance(params, str):
            try:
                params = loads_lenient(params) if params.strip() else {}
            except JsonSlip as exc:
                problems.append(f'{where}: "parameters" is a string that is not JSON ({exc})')
        if not isinstance(params, dict):
            problems.append(f'{where}: "parameters" must be an object, got {type(params).__name__}')
            params = {}
        tool = name if isinstance(name, str) else ""
        if problems:
            self._error(call_id or "?", raw, "; ".join(problems), tool)
            return
        assert call_id is not None
        self.started(tool)
        if call_id in self.state.used_ids:
            self.emit(
                tool,
                params,
                call_id=call_id,
                raw=raw,
                error=f'{where}: id "{call_id}" was already used in this session; '
                "give every call a new, unique id",
                error_code=DUPLICATE_ID,
            )
            return
        self.state.used_ids.add(call_id)
        self.emit(tool, params, call_id=call_id, raw=raw)

    def _error(self, call_id: str, raw: str, message: str, name: str = "") -> None:
        self.emit(name, {}, call_id=call_id, raw=raw, error=message)


def _at(sc: Scanner, text: str) -> Generator[None, None, bool]:
    """True when the unread text starts with `text` (consumes nothing)."""
    head = yield from sc.peek(len(text))
    return head == text


class AgentXml(Dialect):
    """The Agent XML dialect."""

    name = "agentxml"
    summary = "Agent XML: <thinking>, <tools> JSON array, <final_answer>"

    def parser(
        self, schemas: SchemaLookup = no_schemas, state: DialectState | None = None
    ) -> StreamParser:
        """See `Dialect.parser`."""
        return AgentXmlParser(schemas, state)

    def render_results(self, outcomes: Sequence[CallOutcome]) -> str:
        """`<tools_result>` with `[{"id", "result"}]`; result is a JSON string."""
        items = []
        for o in outcomes:
            if o.success:
                body: dict[str, Any] = {
                    "success": True,
                    "data": o.data if o.data is not None else o.content,
                }
            else:
                body = {"success": False, "error": o.content}
                if o.error_code:
                    body["code"] = o.error_code
            if o.status and o.status not in ("ok", "error"):
                body["status"] = o.status
            items.append({"id": o.call.id, "result": json.dumps(body, ensure_ascii=False)})
        text = json.dumps(items, ensure_ascii=False, indent=2).replace("</", "<\\/")
        return f"<tools_result>\n{text}\n</tools_result>"

    def format_call(self, name: str, params: Mapping[str, Any]) -> str:
        """One call inside a `<tools>` array."""
        call = {"id": "1", "name": name, "parameters": dict(params)}
        body = json.dumps([call], ensure_ascii=False, indent=2)
        return f"<tools>\n{body}\n</tools>"

    def instructions(self) -> str:
        """The Agent XML rules, for the system prompt."""
        return _INSTRUCTIONS


_INSTRUCTIONS = """\
# How to use tools (Agent XML)
Think in <thinking>...</thinking>. To call tools, write a <tools> block holding a JSON
array of calls, then stop and wait for <tools_result>:
<tools>
[{"id": "1", "name": "TOOL", "parameters": {"param": "value"}}]
</tools>
Every call needs an "id" that was never used before in this conversation (count up).
Each result is {"id", "result"} where result is a JSON string
{"success": true, "data": ...} or {"success": false, "error": "...", "code": "..."}.
When the task is done, answer in <final_answer>...</final_answer>, based only on the
tool results; if a tool failed, say why. Never write <tools_result> yourself.
Use $KARYI{NAME} in any parameter to insert a secret the user stored.
"""
