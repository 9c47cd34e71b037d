"""The custom methods' types are written once (lsp/wire/params.py): the server checks
requests against the schema derived from them, and the extension's `protocol.gen.ts`
is generated from them and current."""

from __future__ import annotations

from pathlib import Path

from karyi.core.schema import ParamValidator
from karyi.lsp.params import schemas
from karyi.lsp.wire.params import METHODS
from karyi.lsp.wire.typescript import typescript

ROOT = Path(__file__).resolve().parents[2]


def test_the_extension_types_are_generated_from_the_server_types() -> None:
    checked_in = (ROOT / "client-vscode" / "src" / "protocol.gen.ts").read_text()
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
