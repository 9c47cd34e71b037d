"""Code review in the editor (docs/review.md#in-the-editor): `karyi.review` runs the
review of agent/code_review/ and publishes its findings as diagnostics whose source is
"Karyi review"; `karyi.dismissFinding` removes one.

Any LSP client gets them (Neovim and Emacs through plain `publishDiagnostics`). A new
review replaces every finding of the last one; a finding follows the user's edits to its
document (`follow_edits`, called by documents.py with the text before and after) and is
published again at its new lines. Each diagnostic's `data` holds the finding (its id,
title, reviewers and suggestion), which the code actions read (review_actions.py: *Fix
with Karyi*, *Dismiss*).
"""

from __future__ import annotations

import asyncio
import difflib
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from karyi.lsp.command_args import command_args
from karyi.lsp.errors import rpc
from karyi.lsp.server import KaryiServer

if TYPE_CHECKING:
    from karyi.agent.code_review.findings import Finding
    from karyi.agent.code_review.runner import Review
    from karyi.agent.events import Event

SOURCE = "Karyi review"
Block = tuple[str, int, int, int, int]
"""One of difflib's opcodes: tag, old lines i1..i2, new lines j1..j2."""
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


@rpc
async def review(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.review`: review the uncommitted work (or `base`, or `commit`; `paths`
    relative to the workspace root), publish the findings, and answer the review as
    `karyi review --format json` prints it."""
    from karyi.agent.code_review.changes import ChangeError, collect
    from karyi.agent.code_review.runner import run_review

    a = command_args("karyi.review", args)
    await ls.ready()
    runtime = ls.require_host().runtime
    root = runtime.workspace.root
    paths = [str(root / p) for p in a.get("paths") or []]
    try:
        change = await asyncio.to_thread(
            collect, root, base=a.get("base"), commit=a.get("commit"), paths=paths
        )
    except ChangeError as exc:
        raise JsonRpcInvalidParams(f"karyi.review: {exc}") from None
    if change.empty:
        publish(ls, root, [])
        if not ls.ui:
            _show(ls, f"Karyi review: nothing to review (no changed lines in the {change.label})")
        return {"change": change.label, "findings": [], "dropped": 0, "merged": 0}
    token = await _begin(ls, f"Karyi: reviewing the {change.label}")
    try:
        done = await run_review(runtime, change, watch=_watcher(ls, token))
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd())
    publish(ls, root, done.findings)
    if not ls.ui:  # Karyi's VS Code extension says it itself, with a way to the findings
        _show(ls, f"Karyi review: {_summary(done)}")
    return done.to_dict()


@rpc
async def dismiss_finding(ls: KaryiServer, *args: Any) -> dict[str, Any]:
    """`karyi.dismissFinding`: remove the finding `id` of the document `uri`."""
    a = command_args("karyi.dismissFinding", args)
    uri, wanted = a.get("uri"), a.get("id")
    if not uri or not wanted:
        raise JsonRpcInvalidParams("karyi.dismissFinding: expected {uri, id}")
    kept = [d for d in ls.review_findings.get(uri, []) if _id(d) != wanted]
    dismissed = len(ls.review_findings.get(uri, [])) - len(kept)
    _publish_one(ls, uri, kept)
    return {"dismissed": dismissed}


def publish(ls: KaryiServer, root: Path, findings: list[Finding]) -> None:
    """Replace every published finding with `findings`."""
    by_uri: dict[str, list[types.Diagnostic]] = {}
    texts: dict[str, list[str]] = {}
    for finding in findings:
        uri = (root / finding.path).as_uri()
        if uri not in texts:
            texts[uri] = _text(ls, root / finding.path).splitlines()
        by_uri.setdefault(uri, []).append(diagnostic(finding, texts[uri]))
    for uri in set(ls.review_findings) - set(by_uri):
        _publish_one(ls, uri, [])
    for uri, diagnostics in by_uri.items():
        _publish_one(ls, uri, diagnostics)


def _text(ls: KaryiServer, path: Path) -> str:
    """The file's text as the editor has it (its open buffer first); '' when unreadable."""
    try:
        return ls.require_host().runtime.workspace.documents.read(path, str(path)).text
    except Exception:
        return ""


def lines_range(first: int, last: int, lines: Sequence[str]) -> types.Range:
    """Whole lines `first..last` (0-based): to the end of the last one when it is known."""
    end = (
        types.Position(last, len(lines[last])) if last < len(lines) else types.Position(last + 1, 0)
    )
    return types.Range(types.Position(first, 0), end)


def last_line(d: types.Diagnostic) -> int:
    """The last line a finding's diagnostic covers (0-based)."""
    end = d.range.end
    return end.line - 1 if end.character == 0 and end.line > d.range.start.line else end.line


def diagnostic(finding: Finding, lines: Sequence[str] = ()) -> types.Diagnostic:
    """A finding as an LSP diagnostic over its whole lines (0-based)."""
    data = {"id": uuid.uuid4().hex[:12], **finding.to_dict()}
    return types.Diagnostic(
        range=lines_range(finding.line - 1, finding.end_line - 1, lines),
        message=f"{finding.title}\n\n{finding.body}",
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Information),
        source=SOURCE,
        code=", ".join(finding.reviewers) or None,
        data=data,
    )


def _publish_one(ls: KaryiServer, uri: str, diagnostics: list[types.Diagnostic]) -> None:
    if diagnostics:
        ls.review_findings[uri] = diagnostics
    else:
        ls.review_findings.pop(uri, None)
    params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
    ls.text_document_publish_diagnostics(params)


def _id(d: types.Diagnostic) -> str | None:
    data = d.data if isinstance(d.data, dict) else {}
    found = data.get("id")
    return str(found) if found is not None else None


def follow_edits(ls: KaryiServer, uri: str, old: str, new: str) -> None:
    """Move the findings of an edited document with the lines they are on (the old and
    new texts compared line by line), and publish them again; a finding whose lines were
    rewritten covers what replaced them."""
    current = ls.review_findings.get(uri)
    if not current or old == new:
        return
    lines = new.splitlines()
    blocks = difflib.SequenceMatcher(None, old.splitlines(), lines, autojunk=False).get_opcodes()
    _publish_one(ls, uri, [_moved(d, blocks, lines) for d in current])


def _new_line(line: int, blocks: Sequence[Block], *, end: bool) -> int:
    """Where old line `line` (0-based) is in the new text; a rewritten line maps to the
    start (or, for `end`, the last line) of what replaced it."""
    for tag, i1, i2, j1, j2 in blocks:
        if i1 <= line < i2:
            if tag == "equal":
                return j1 + (line - i1)
            return max(j1, j2 - 1) if end else j1
    return blocks[-1][4] if blocks else line


def _moved(d: types.Diagnostic, blocks: Sequence[Block], lines: Sequence[str]) -> types.Diagnostic:
    start = _new_line(d.range.start.line, blocks, end=False)
    last = max(start, _new_line(last_line(d), blocks, end=True))
    return types.Diagnostic(
        range=lines_range(start, last, lines),
        message=d.message,
        severity=d.severity,
        source=d.source,
        code=d.code,
        data=d.data,
    )


async def _begin(ls: KaryiServer, title: str) -> str | None:
    window = ls.client_capabilities.window
    if window is None or not window.work_done_progress:
        ls.log(title)
        return None
    token = f"karyi-review-{uuid.uuid4().hex[:8]}"
    await ls.work_done_progress.create_async(token)
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title))
    return token


def _watcher(ls: KaryiServer, token: str | None) -> Any:
    from karyi.agent.events import ToolQueued

    def watch(reviewer: str, event: Event) -> None:
        if isinstance(event, ToolQueued):
            text = f"{reviewer}: {event.description}"
            ls.log(f"karyi: {text}")
            if token is not None:
                ls.work_done_progress.report(token, types.WorkDoneProgressReport(message=text))

    return watch


def _summary(done: Review) -> str:
    from karyi.agent.code_review.findings import SEVERITIES

    counts = [f"{sum(f.severity == s for f in done.findings)} {s}" for s in SEVERITIES]
    tokens = f"{done.tokens:,} tokens"
    cost = f", ${done.cost:.4f}" if done.cost is not None else ""
    return f"{len(done.findings)} finding(s) ({', '.join(counts)}), {tokens}{cost}"


def _show(ls: KaryiServer, message: str) -> None:
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message))
