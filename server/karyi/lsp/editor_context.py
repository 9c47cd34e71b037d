"""Editor context (file, selection, diagnostics, mentioned files) as text for the model."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pygls.uris import to_fs_path

SEVERITY = {1: "error", 2: "warning", 3: "info", 4: "hint"}


def uri_path(uri: str) -> str:
    """A file URI as a filesystem path (the URI itself if it is not a file URI)."""
    return to_fs_path(uri) or uri


def describe_context(context: Mapping[str, Any] | None, root: Path) -> str:
    """The context block appended to the user's message; empty when there is none."""
    if not context:
        return ""
    lines = ["Context from the editor:"]
    uri = context.get("uri")
    shown = _relative(uri_path(uri), root) if isinstance(uri, str) else None
    selection = context.get("selection")
    if shown:
        where = ""
        if isinstance(selection, Mapping):
            start, end = selection["start"]["line"] + 1, selection["end"]["line"] + 1
            where = f" (lines {start}-{end} selected)" if end > start else f" (line {start})"
        lines.append(f"- Current file: {shown}{where}")
    text = context.get("text")
    if isinstance(text, str) and text.strip():
        lines += ["- Selected text:", "```", text.rstrip("\n"), "```"]
    for d in context.get("diagnostics") or []:
        if isinstance(d, Mapping):
            line = d.get("range", {}).get("start", {}).get("line", 0) + 1
            severity = SEVERITY.get(int(d.get("severity") or 1), "error")
            source = f" [{d['source']}]" if d.get("source") else ""
            lines.append(f"- {severity} at line {line}{source}: {d.get('message', '')}")
    files = [f for f in context.get("files") or [] if isinstance(f, str)]
    if files:
        names = ", ".join(_relative(uri_path(f), root) for f in files)
        lines.append(f"- Files the user mentioned (read them as needed): {names}")
    return "\n".join(lines) if len(lines) > 1 else ""


def _relative(path: str, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return path
