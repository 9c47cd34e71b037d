"""The navigation tools on code none of us wrote: the standard library's `email`
package. Definitions must be exact; references are measured against every place the
name is written as an identifier (Python's own `ast`), beside `rg -w` on the same
questions (docs/tools.md#code-navigation)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from karyi.navigation.navigator import Navigator
from karyi.settings import Settings
from karyi.tools.context import ToolContext
from karyi.workspace.workspace import Workspace
from tests.support.email_package import copy_email, declaration, identifier_places
from tests.support.rg_words import rg_words
from tests.support.tool_calls import call, code

QUESTIONS = [
    ("formatdate", None),
    ("decode_params", None),
    ("_splitparam", None),
    ("parsedate_tz", None),
    ("header_encode", "Charset"),
    ("_formatparam", None),
    ("collapse_rfc2231_value", None),
    ("make_msgid", None),
    ("decode_rfc2231", None),
    ("_has_surrogates", None),
    ("get_content_charset", "Message"),
    ("set_boundary", "Message"),
]
"""Names (with the class they belong to) whose references are asked for."""


@pytest.fixture
async def nav_ctx(tmp_path: Path) -> AsyncIterator[ToolContext]:
    root = copy_email(tmp_path / "ws")
    ws = Workspace.open(root)
    settings = Settings()
    nav = Navigator(settings.navigation, root, ws.documents)
    yield ToolContext(workspace=ws, settings=settings, navigator=nav)
    await nav.aclose()


def _symbol(name: str, owner: str | None) -> str:
    return f"{owner}.{name}" if owner else name


def _places(data: object) -> set[tuple[str, int, int]]:
    assert isinstance(data, dict)
    return {(d["path"], d["line"], d["column"]) for d in data["locations"]}


async def test_definitions_are_exact(nav_ctx: ToolContext) -> None:
    root = nav_ctx.workspace.root
    for name, owner in QUESTIONS:
        result = await call("karyi.definition", {"symbol": _symbol(name, owner)}, nav_ctx)
        assert result.success, result.llm_content
        assert _places(result.data) == {declaration(root, name, owner)}, name
    # from a use: the line where `utils.encode_rfc2231` is called, in another module
    used = await call(
        "vecli.definition",
        {"symbol": "encode_rfc2231", "path": "emailpkg/message.py", "line": 55},
        nav_ctx,
    )
    assert _places(used.data) == {declaration(root, "encode_rfc2231")}
    assert used.llm_content.splitlines()[1] == (
        "emailpkg/utils.py:242:5: def encode_rfc2231(s, charset=None, language=None):"
    )


async def test_references_beat_rg_on_precision(nav_ctx: ToolContext) -> None:
    root = nav_ctx.workspace.root
    found = truth_total = hits = 0
    rg_hits = rg_true = 0
    for name, owner in QUESTIONS:
        result = await call("agentxml.references", {"symbol": _symbol(name, owner)}, nav_ctx)
        assert result.success, result.llm_content
        got = _places(result.data)
        truth = identifier_places(root, name)
        found += len(got)
        hits += len(got & truth)
        truth_total += len(truth)
        assert declaration(root, name, owner) in got  # references include the definition
        rg, _size = rg_words(root, name)
        rg_hits += len(rg)
        rg_true += len(rg & truth)
    precision, recall = hits / found, hits / truth_total
    rg_precision = rg_true / rg_hits
    assert precision >= 0.97, precision
    assert recall >= 0.8, recall
    assert precision - rg_precision >= 0.1, (precision, rg_precision)


async def test_a_name_that_says_too_little_or_nothing(nav_ctx: ToolContext) -> None:
    many = await call("karyi.references", {"symbol": "decode"}, nav_ctx)
    assert code(many) == "invalid_tool_input"
    assert many.llm_content.splitlines()[0] == (
        "3 symbols are named 'decode'; give `path` (and `line`) to choose one:"
    )
    assert "emailpkg/base64mime.py:98: function decode" in many.llm_content
    narrowed = await call(
        "karyi.references", {"symbol": "decode", "path": "emailpkg/base64mime.py"}, nav_ctx
    )
    assert narrowed.success
    unknown = await call("karyi.definition", {"symbol": "fromatdate"}, nav_ctx)
    assert code(unknown) == "tool_not_found"
    assert unknown.llm_content.startswith(
        "no symbol named 'fromatdate' was found; the closest are formatdate"
    )
    neither = await call("karyi.hover", {}, nav_ctx)
    assert code(neither) == "invalid_tool_input"
    assert "give `symbol`" in neither.llm_content


async def test_hover_calls_and_symbols(nav_ctx: ToolContext) -> None:
    hover = await call("karyi.hover", {"symbol": "Message.get_payload"}, nav_ctx)
    assert hover.llm_content.startswith("emailpkg/message.py:243\n(method) def get_payload(")
    callers = await call("karyi.calls", {"symbol": "_splitparam"}, nav_ctx)
    assert callers.llm_content.splitlines() == [
        "Callers of _splitparam: 2 in 1 file",
        "emailpkg/message.py:609:17: ctype = _splitparam(value)[0].lower()  (in get_content_type)",
        "emailpkg/message.py:965:15: c_d = _splitparam(value)[0].lower()"
        "  (in get_content_disposition)",
    ]
    callees = await call(
        "karyi.calls", {"symbol": "Message.get_params", "direction": "outgoing"}, nav_ctx
    )
    assert "(calls _get_params_preserve)" in callees.llm_content
    outline = await call("karyi.symbols", {"path": "emailpkg/base64mime.py"}, nav_ctx)
    assert "emailpkg/base64mime.py:98:5: def decode(string):  (function decode)" in (
        outline.llm_content.splitlines()
    )
    assert "groups_of_3" not in outline.llm_content  # a function's locals are not its outline
    search = await call("karyi.symbols", {"query": "formatdate"}, nav_ctx)
    assert "emailpkg/utils.py:126:5: def formatdate(" in search.llm_content
