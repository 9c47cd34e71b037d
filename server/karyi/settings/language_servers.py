"""The settings objects of the language servers Karyi starts itself: for the problems
after an edit (`diagnostics`) and for code navigation (`navigation`); see sections.py
for how a settings object is declared."""

from __future__ import annotations

from typing import ClassVar, Literal

import attrs

from karyi.settings.sections import _meta, _seconds


@attrs.frozen(kw_only=True)
class LanguageServer:
    """A language server Karyi starts for a language (docs/context.md#diagnostics)."""

    closed: ClassVar[bool] = True
    command: list[str] = attrs.field(metadata={"min_items": 1})
    extensions: list[str]


def _ruff() -> dict[str, LanguageServer]:
    return {"python": LanguageServer(command=["ruff", "server"], extensions=[".py", ".pyi"])}


@attrs.frozen(kw_only=True)
class Diagnostics:
    """`diagnostics`: where the problems after an edit come from."""

    closed: ClassVar[bool] = True
    source: Literal["auto", "editor", "servers", "off"] = attrs.field(
        default="auto",
        metadata=_meta(
            description="where problems after an edit come from: auto is the editor "
            "when there is one, else Karyi's language servers"
        ),
    )
    wait_seconds: float = attrs.field(
        default=5, metadata={**_seconds("longest wait for problems after an edit"), "maximum": 60}
    )
    servers: dict[str, LanguageServer] = attrs.field(
        factory=_ruff,
        metadata=_meta(description="languageId -> the language server Karyi starts for it"),
    )


def _navigation_servers() -> dict[str, LanguageServer]:
    return {
        "python": LanguageServer(
            command=["basedpyright-langserver", "--stdio"], extensions=[".py", ".pyi"]
        ),
        "typescript": LanguageServer(
            command=["typescript-language-server", "--stdio"],
            extensions=[".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts"],
        ),
        "go": LanguageServer(command=["gopls"], extensions=[".go"]),
        "rust": LanguageServer(command=["rust-analyzer"], extensions=[".rs"]),
        "cpp": LanguageServer(
            command=["clangd"], extensions=[".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"]
        ),
    }


@attrs.frozen(kw_only=True)
class Navigation:
    """`navigation`: the language servers behind `definition`, `references` and the other
    code navigation tools (docs/context.md#where-navigation-answers-come-from)."""

    closed: ClassVar[bool] = True
    source: Literal["auto", "editor", "servers"] = attrs.field(
        default="auto",
        metadata=_meta(
            description="where navigation answers come from: auto is the editor's language "
            "features when there is one, then Karyi's language servers"
        ),
    )
    servers: dict[str, LanguageServer] = attrs.field(
        factory=_navigation_servers,
        metadata=_meta(
            description="languageId -> the language server Karyi starts for code navigation "
            "(a program not on PATH is skipped)"
        ),
    )
    timeout_seconds: float = attrs.field(
        default=30, metadata={**_seconds("longest wait for one language server request")}
    )
    idle_seconds: float = attrs.field(
        default=300, metadata={**_seconds("a language server unused this long is shut down")}
    )
