"""`client-vscode/src/protocol/protocol.gen.ts` from the server's types: the custom methods'
parameters and names (params.py), the agent's events as `karyi/turnUpdate` carries them
(agent/events.py) and what the server sends back (results.py). `make protocol` writes
it; a test fails when it is not current."""

from __future__ import annotations

import sys
import typing
from typing import Any, Literal

import attrs

from karyi.agent import events
from karyi.agent.session import transcript
from karyi.core.images import ImageJson
from karyi.core.results import ToolResult
from karyi.lsp.wire import params, results
from karyi.lsp.wire.ts_types import Writer
from karyi.protocol.calls import ToolCall
from karyi.tools.mcp.status import ServerStatus
from karyi.workspace.diffs import FileDiffJson
from karyi.workspace.editor import FileProposalJson, PlannedWrite
from karyi.workspace.hunks import HunkJson
from karyi.workspace.positions import PositionJson, RangeJson, TextEditJson

HEADER = """\
// Generated from server/karyi/lsp/wire/ (params.py, results.py) and
// server/karyi/agent/events.py by `make protocol`: do not edit.
// The custom methods' parameters and names, the events of `karyi/turnUpdate` and what
// the server sends (docs/protocol.md, "The language server").
"""

FORMS: dict[type, type] = {
    ToolCall: events.CallJson,
    ToolResult: results.ToolResultJson,
    PlannedWrite: FileProposalJson,
}
"""Classes with a JSON form of their own, and the TypedDict of that form."""

NAMES: dict[Any, str] = {
    events.Event: "TurnEvent",
    events.CallJson: "Call",
    FileProposalJson: "FileProposal",
    FileDiffJson: "FileDiff",
    HunkJson: "Hunk",
    TextEditJson: "ProposalEdit",
    RangeJson: "Range",
    PositionJson: "Position",
    ServerStatus: "McpServerStatus",
    ImageJson: "ImageData",
    transcript.TranscriptJson: "Transcript",
    transcript.TurnJson: "TranscriptTurn",
    transcript.TextBlockJson: "TranscriptText",
    transcript.CallBlockJson: "TranscriptCall",
    transcript.NoticeBlockJson: "TranscriptNotice",
    transcript.SteerBlockJson: "TranscriptSteer",
    transcript.FileStatJson: "FileStat",
}
"""TypeScript names where they differ from the Python ones (the extension's)."""


def _aliases(*modules: Any) -> dict[Any, str]:
    """The `Literal` aliases of `modules` by value: written by name, not inlined."""
    return {
        value: name
        for module in modules
        for name, value in vars(module).items()
        if typing.get_origin(value) is Literal and not name.startswith("_")
    }


def _classes(module: Any, keep: Any) -> list[type]:
    return [
        c
        for c in vars(module).values()
        if isinstance(c, type) and c.__module__ == module.__name__ and keep(c)
    ]


def _event_classes() -> list[type[events.Event]]:
    return _classes(events, lambda c: issubclass(c, events.Event) and c is not events.Event)


def _event_name(cls: type) -> str:
    return cls.__name__ if cls.__name__.endswith("Event") else cls.__name__ + "Event"


def typescript() -> str:
    """The whole generated file."""
    aliases = _aliases(params, events, results)
    event_classes = _event_classes()
    names = {**aliases, **NAMES, **{c: _event_name(c) for c in event_classes}}
    writer = Writer(
        names,
        FORMS,
        camel_case=lambda c: attrs.has(c) or c in event_classes,
        written={events.Event, RangeJson, PositionJson},
    )
    parts = [HEADER]
    for value, name in aliases.items():
        parts.append(f"\nexport type {name} = {Writer({}).ts(value)};\n")
    for cls in _classes(params, attrs.has):
        parts.append("\n" + writer.interface(cls))
    parts.append("\n/** The custom methods, by name. */\nexport const Methods = {\n")
    for short, (method, _cls) in params.METHODS.items():
        parts.append(f"  {short}: '{method}',\n")
    parts.append("} as const;\n")
    for cls in event_classes:
        parts.append("\n" + writer.interface(cls, tag=cls.kind))
    writer.ts(events.DraftFile)  # named by ToolDraft.files' override
    union = "".join(f"\n  | {_event_name(c)}" for c in event_classes)
    parts.append(
        f"\n/** Every event of a turn (agent/events.py). */\nexport type TurnEvent ={union};\n"
    )
    for cls in _classes(results, lambda c: c not in writer.written and not typing.get_args(c)):
        if cls not in writer.written:  # a base written before the class that names it
            parts.append("\n" + writer.interface(cls, extends=results.EXTENDS.get(cls)))
    parts.append(_params_map(writer))
    parts.append(_results_map(writer))
    parts.extend(writer.pending())
    return "".join(parts)


def _params_map(writer: Writer) -> str:
    """`Params`: what each request the client sends takes, by method (what
    `KaryiServer.request` of the extension checks its parameters against)."""
    rows = "".join(
        f"  '{method}': {writer.ts(cls)};\n"
        for method, cls in params.METHODS.values()
        if cls is not None
    )
    doc = "/** What each request the client sends takes, by method. */"
    return f"\n{doc}\nexport interface Params {{\n{rows}}}\n"


def _results_map(writer: Writer) -> str:
    """`Results`: what each request answers, by method (what `KaryiServer.request` of
    the extension resolves to)."""
    rows = "".join(f"  '{m}': {writer.ts(hint)};\n" for m, hint in results.result_types().items())
    doc = "/** What each request answers, by method. */"
    return f"\n{doc}\nexport interface Results {{\n{rows}}}\n"


if __name__ == "__main__":
    sys.stdout.write(typescript())
