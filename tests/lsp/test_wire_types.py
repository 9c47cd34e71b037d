"""The custom methods' types are written once (lsp/wire/params.py, results.py): the
server checks requests against the schema derived from them, each handler returns its
method's result type, and the extension's `protocol.gen.ts` is generated from them and
current."""

from __future__ import annotations

import typing
from dataclasses import is_dataclass
from pathlib import Path
from typing import Annotated

import attrs

from karyi.core.schema import ParamValidator
from karyi.lsp.features import FEATURES
from karyi.lsp.params import schemas
from karyi.lsp.wire.params import METHODS
from karyi.lsp.wire.results import Acknowledged, Deleted, FileDiffs, TaskReview, result_types
from karyi.lsp.wire.typescript import typescript
from tests.support.wire_shape import mismatches

ROOT = Path(__file__).resolve().parents[2]


def test_the_extension_types_are_generated_from_the_server_types() -> None:
    checked_in = (ROOT / "client-vscode" / "src" / "protocol" / "protocol.gen.ts").read_text()
    assert checked_in == typescript(), "run `make protocol` and commit protocol.gen.ts"


def test_every_request_method_has_a_schema_and_every_schema_a_method() -> None:
    requests = {method for method, cls in METHODS.values() if cls is not None}
    assert set(schemas()) == requests


def test_the_derived_schema_says_what_the_wire_says() -> None:
    chat = {"type": "object", "additionalProperties": False, **schemas()["karyi/chat"]}
    errors = ParamValidator(chat, noun="field").errors(
        {"message": "", "mode": "later", "context": {"selection": {"start": {}}}, "x": 1}
    )
    text = "; ".join(errors)
    for part in ("message", "mode", "selection", "x"):
        assert part in text
    assert ParamValidator(chat, noun="field").errors({"message": "hi", "sessionId": None}) == []


def test_every_request_handler_declares_a_wire_type_it_returns() -> None:
    """`result_types` reads the handlers' annotations: each must name a type of the
    wire (results.py), not a bare dict or Any the extension could not be typed with."""
    requests = {method for method, cls in METHODS.values() if cls is not None}
    assert set(result_types()) == requests
    for method, result in result_types().items():
        declared = typing.get_args(result)[1] if typing.get_origin(result) is Annotated else result
        typed = typing.is_typeddict(declared) or attrs.has(declared) or is_dataclass(declared)
        assert typed, f"{method}: {result}"
        assert FEATURES[method].load().__module__.startswith("karyi.lsp.")


def test_a_result_off_its_type_is_caught_key_by_key() -> None:
    fine = {"task": {"id": "t1"}, "files": [], "notes": []}
    assert mismatches({"deleted": "s1"}, result_types()["karyi/deleteSession"]) == []
    assert mismatches({"deleted": "s1", "more": 1}, Deleted) == [
        "result.more: not a key of Deleted"
    ]
    assert mismatches({"ok": "yes"}, Acknowledged) == ["result.ok: 'yes' is not a bool"]
    assert mismatches({"pending": [{"toolCallId": "c1"}], "applied": []}, FileDiffs) == [
        "result.pending[0].files: missing (CallDiffs)"
    ]
    problems = mismatches(fine, TaskReview)
    assert "result.task.status: missing (TaskRecord)" in problems
    assert not [p for p in problems if not p.startswith("result.task.")]
