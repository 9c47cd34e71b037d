"""What every navigation tool shares: the `symbol`/`path`/`line`/`column` parameters,
finding the place a call is about, and a language server's faults as one sentence.

The answers come from `karyi.navigation` (Karyi's own language servers); a call never
waits longer than `navigation.timeout_seconds` on one request, and every fault becomes
a failed result, never a stuck turn (docs/tools.md#code-navigation).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.tools.context import ToolContext
from karyi.tools.typed import ToolParams, arg, param_class

if TYPE_CHECKING:
    from karyi.navigation.lookup import Target
    from karyi.navigation.navigator import Navigator
    from karyi.navigation.places import LineReader, Symbol

SYMBOL = (
    "the symbol's name, alone or qualified by its class or module (`get_payload`, "
    "`Message.get_payload`, `utils.formatdate`)"
)
PATH = "a file (or folder) to look for the symbol in; with `line`, the file of a position"
LINE = "a line of `path` (from 1) where the symbol is written"
COLUMN = "the column in that line (from 1); left out, the symbol's name is looked for in it"


@param_class
class SymbolParams(ToolParams):
    """The parameters of `definition`, `references` and `hover`."""

    symbol: str | None = arg(implied=None, min_length=1, description=SYMBOL)
    path: str | None = arg(implied=None, description=PATH)
    line: int | None = arg(implied=None, minimum=1, description=LINE)
    column: int | None = arg(implied=None, minimum=1, description=COLUMN)


def check_symbol(symbol: str | None, path: str | None, line: int | None) -> str | None:
    """The message when a call names neither a symbol nor a path and a line."""
    if symbol or (path and line):
        return None
    return "give `symbol` (a name such as Message.get_payload), or `path` and `line`"


def navigator(ctx: ToolContext) -> Navigator:
    """The context's language servers (a failure when this front end has none)."""
    if ctx.navigator is None:
        raise ToolFailure(ErrorCode.DISABLED, "code navigation is not available here")
    return ctx.navigator


def line_reader(ctx: ToolContext) -> LineReader:
    """Files' lines as the user sees them (open buffers first), read once per call."""
    cache: dict[Path, list[str] | None] = {}

    def lines_of(path: Path) -> list[str] | None:
        if path not in cache:
            try:
                snap = ctx.workspace.documents.read(path, ctx.workspace.display(path))
                cache[path] = snap.text.splitlines()
            except (ToolFailure, OSError):
                cache[path] = None
        return cache[path]

    return lines_of


def resolve_path(ctx: ToolContext, path: str | None) -> Path | None:
    """The call's `path` through the path policy (None when left out)."""
    return ctx.workspace.resolve(path, param="path") if path else None


def choices(symbols: tuple[Symbol, ...] | list[Symbol], display: Callable[[Path], str]) -> str:
    """`path:line: kind Qualified.name` a symbol, for the model to choose from."""
    return "\n".join(
        f"{display(s.place.path)}:{s.place.line + 1}: {s.kind} {s.qualified}" for s in symbols
    )


async def find_target(
    ctx: ToolContext,
    symbol: str | None,
    path: str | None,
    line: int | None,
    column: int | None,
    *,
    many: bool = False,
) -> Target:
    """The place the call is about; an unknown name fails with the closest names, and
    several matches with the choices (with `many`, they are the target's `symbols`)."""
    from karyi.navigation.fallback import locate_any
    from karyi.navigation.lookup import Ambiguous, Target

    nav = navigator(ctx)
    try:
        return await locate_any(
            nav,
            line_reader(ctx),
            symbol=symbol,
            path=resolve_path(ctx, path),
            line=line,
            column=column,
        )
    except Ambiguous as found:
        if many:
            first = found.symbols[0].place
            return Target(nav.for_path(first.path), first, tuple(found.symbols))
        raise ToolFailure(
            ErrorCode.INVALID_TOOL_INPUT,
            f"{len(found.symbols)} symbols are named {symbol!r}; give `path` (and `line`) "
            f"to choose one:\n{choices(found.symbols, ctx.workspace.display)}",
        ) from None


@asynccontextmanager
async def server_faults(what: str) -> AsyncIterator[None]:
    """A language server's faults as a failed call that says what happened."""
    from karyi.navigation.errors import ServerError, ServerGone
    from karyi.navigation.lookup import Unknown
    from karyi.navigation.navigator import NoServer

    try:
        yield
    except Unknown as exc:
        raise ToolFailure(ErrorCode.NOT_FOUND, str(exc)) from None
    except NoServer as exc:
        raise ToolFailure(ErrorCode.DISABLED, f"{what}: {exc}") from None
    except TimeoutError as exc:
        raise ToolFailure(ErrorCode.TIMEOUT, f"{what}: {exc}") from None
    except ServerError as exc:
        raise ToolFailure(ErrorCode.TOOL_ERROR, f"{what}: {exc}") from None
    except ServerGone as exc:
        raise ToolFailure(
            ErrorCode.TOOL_ERROR,
            f"{what}: the language server failed ({exc}); it was restarted once and failed again",
        ) from None
