"""`textDocument/codeAction`: Karyi's tasks offered where they fit.

A diagnostic under the cursor offers "Fix with Karyi"; a selection offers explaining it
and writing tests for it. Each action runs one of the commands in `commands.py`.
"""

from __future__ import annotations

from lsprotocol import types

from karyi.lsp.params import lsp_json
from karyi.lsp.server import KaryiServer

OPTIONS = types.CodeActionOptions(
    code_action_kinds=[types.CodeActionKind.QuickFix, types.CodeActionKind.Refactor]
)
"""The code action kinds the server declares in its capabilities."""

SELECTION_TASKS = (
    ("Ask Karyi to explain this", "karyi.explainSelection"),
    ("Ask Karyi to write tests for this", "karyi.writeTests"),
)


def code_actions(ls: KaryiServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """The tasks for the diagnostics and the selection the client sent."""
    uri = params.text_document.uri
    rng = lsp_json(params.range)
    actions: list[types.CodeAction] = []
    if params.context.diagnostics:
        diags = lsp_json(params.context.diagnostics)
        actions.append(
            types.CodeAction(
                title="Fix with Karyi",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=list(params.context.diagnostics),
                command=types.Command(
                    title="Fix with Karyi",
                    command="karyi.fixDiagnostics",
                    arguments=[{"uri": uri, "range": rng, "diagnostics": diags}],
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
