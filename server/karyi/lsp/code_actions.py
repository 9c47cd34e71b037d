"""`textDocument/codeAction`: Karyi's tasks offered where they fit.

A diagnostic on the requested lines offers "Fix with Karyi": those the client sent in
the context, and those Karyi's own language servers report (lsp/own_diagnostics.py),
since a client may send a server only the diagnostics it published itself. A selection
offers explaining it and writing tests for it. Each action runs one of the commands in
`editor_commands.py`. A code review's finding on the lines (lsp/code_review.py) offers
*Fix with Karyi* (its suggestion as an edit, else a turn about it) and *Dismiss*
(lsp/review_actions.py). The kinds offered (quick fix, refactor) are declared in the
capabilities by features.py, which does not import this module before it is needed.
"""

from __future__ import annotations

from lsprotocol import types

from karyi.lsp.own_diagnostics import own_diagnostics
from karyi.lsp.params import lsp_json
from karyi.lsp.server import KaryiServer

SELECTION_TASKS = (
    ("Ask Karyi to explain this", "karyi.explainSelection"),
    ("Ask Karyi to write tests for this", "karyi.writeTests"),
)


async def code_actions(ls: KaryiServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The tasks for the diagnostics on the requested lines and for the selection."""
    uri = params.text_document.uri
    rng = lsp_json(params.range)
    from karyi.lsp.review_actions import review_actions, without_suggested

    actions = review_actions(ls, params)
    diagnostics = without_suggested(ls, await _diagnostics(ls, params))
    if diagnostics:
        actions.append(
            types.CodeAction(
                title="Fix with Karyi",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=diagnostics,
                command=types.Command(
                    title="Fix with Karyi",
                    command="karyi.fixDiagnostics",
                    arguments=[{"uri": uri, "range": rng, "diagnostics": lsp_json(diagnostics)}],
                ),
            )
        )
    if params.range.start != params.range.end:
        for title, command in SELECTION_TASKS:
            actions.append(
                types.CodeAction(
                    title=title,
                    kind=types.CodeActionKind.Refactor,
                    command=types.Command(
                        title=title, command=command, arguments=[{"uri": uri, "range": rng}]
                    ),
                )
            )
    return actions


async def _diagnostics(ls: KaryiServer, params: types.CodeActionParams) -> list[types.Diagnostic]:
    """The context's diagnostics, then Karyi's own on the requested lines not among them."""
    given = list(params.context.diagnostics)
    first, last = params.range.start.line, params.range.end.line
    seen = {(d.range.start.line, d.message) for d in given}
    own = [
        d
        for d in await own_diagnostics(ls, params.text_document.uri)
        if first <= d.range.start.line <= last and (d.range.start.line, d.message) not in seen
    ]
    return given + own
