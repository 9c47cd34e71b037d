"""The code actions of a code review's findings (docs/review.md#in-the-editor).

On each finding on the requested lines (as published and moved by lsp/code_review.py):
*Fix with Karyi* replaces its lines with its suggestion, a workspace edit the editor
previews first where it can (a change annotation that needs confirmation); a finding
without a suggestion is fixed by a turn about it, the generic *Fix with Karyi* of
code_actions.py. *Dismiss* removes the finding (`karyi.dismissFinding`).
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from karyi.lsp.code_review import SOURCE, last_line
from karyi.lsp.server import KaryiServer

ANNOTATION = "karyi-review"


def _data(d: types.Diagnostic) -> dict[str, Any]:
    return d.data if isinstance(d.data, dict) else {}


def _on_lines(ls: KaryiServer, params: types.CodeActionParams) -> list[types.Diagnostic]:
    first, last = params.range.start.line, params.range.end.line
    return [
        d
        for d in ls.review_findings.get(params.text_document.uri, [])
        if d.range.start.line <= last and last_line(d) >= first
    ]


def review_actions(ls: KaryiServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """*Fix with Karyi* (for a finding with a suggestion) and *Dismiss*, per finding."""
    uri = params.text_document.uri
    actions: list[types.CodeAction] = []
    for d in _on_lines(ls, params):
        data = _data(d)
        title = str(data.get("title") or d.message.split("\n", 1)[0])
        if data.get("suggestion") is not None:
            actions.append(
                types.CodeAction(
                    title=f"Fix with Karyi: {title}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    is_preferred=True,
                    edit=_edit(ls, uri, d, str(data["suggestion"]), title),
                )
            )
        actions.append(
            types.CodeAction(
                title=f"Dismiss: {title}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[d],
                command=types.Command(
                    title="Dismiss",
                    command="karyi.dismissFinding",
                    arguments=[{"uri": uri, "id": data.get("id", "")}],
                ),
            )
        )
    return actions


def without_suggested(
    ls: KaryiServer, diagnostics: list[types.Diagnostic]
) -> list[types.Diagnostic]:
    """The diagnostics a turn should fix: all but the review findings whose suggestion
    is their fix."""
    return [
        d
        for d in diagnostics
        if not (d.source == SOURCE and _data(d).get("suggestion") is not None)
    ]


def _edit(
    ls: KaryiServer, uri: str, d: types.Diagnostic, suggestion: str, title: str
) -> types.WorkspaceEdit:
    text = suggestion if suggestion.endswith("\n") or not suggestion else suggestion + "\n"
    end = types.Position(last_line(d) + 1, 0)
    rng = types.Range(types.Position(d.range.start.line, 0), end)
    caps = ls.client_capabilities.workspace
    edit_caps = caps.workspace_edit if caps is not None else None
    annotated = bool(
        edit_caps is not None
        and edit_caps.document_changes
        and edit_caps.change_annotation_support is not None
    )
    if not annotated:
        return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=rng, new_text=text)]})
    doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None)
    change = types.AnnotatedTextEdit(range=rng, new_text=text, annotation_id=ANNOTATION)
    return types.WorkspaceEdit(
        document_changes=[types.TextDocumentEdit(text_document=doc, edits=[change])],
        change_annotations={
            ANNOTATION: types.ChangeAnnotation(
                label=f"Karyi review: {title}", needs_confirmation=True
            )
        },
    )
