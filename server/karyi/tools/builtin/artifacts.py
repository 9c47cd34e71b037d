"""The research profile's artifact tools: versioned documents the agents of a session share.

`create_artifact` makes version 1; `update_artifact` replaces one piece of text through
the edit engine (`workspace/edits.py`: the same exact-then-fuzzy rules as file edits,
the same refusals of ambiguous or missing text); `rewrite_artifact` replaces the whole
content; each change is a new version, and `read_artifact` reads any of them. The
documents live with the session (`agent/session/artifacts.py`), never in the workspace.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeVar, get_args

from karyi.core.errors import ErrorCode, ToolFailure
from karyi.core.results import ToolResult
from karyi.tools.builtin.edit.plan import ELIDE_IN_FIND
from karyi.tools.builtin.write import file_diff
from karyi.tools.context import Artifact, ArtifactBook, ToolContext
from karyi.tools.typed import ToolParams, TypedTool, arg, param_class
from karyi.workspace.edits import EditError, Pair, apply_edits

ContentType = Literal["markdown", "txt", "python", "html", "json"]
CONTENT_TYPES: tuple[str, ...] = get_args(ContentType)


@param_class
class ArtifactParams(ToolParams):
    """What every artifact tool takes: the artifact's id."""

    id: str = arg(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
        description="Artifact ID (e.g., 'task_plan', 'research_results'): letters, digits, _ . -",
    )


@param_class
class CreateArtifactParams(ArtifactParams):
    """`create_artifact`'s parameters."""

    content_type: ContentType = arg(default="markdown", description="Content format")
    title: str = arg(min_length=1, description="Title of the artifact")
    content: str = arg(description="Initial text content")


@param_class
class ReadArtifactParams(ArtifactParams):
    """`read_artifact`'s parameters."""

    version: int | None = arg(
        implied=None, minimum=1, description="Version number (optional, defaults to latest)"
    )


@param_class
class UpdateArtifactParams(ArtifactParams):
    """`update_artifact`'s parameters."""

    old_str: str = arg(min_length=1, description="Text to be replaced (must match one place)")
    new_str: str = arg(description="New text to replace with")


@param_class
class RewriteArtifactParams(ArtifactParams):
    """`rewrite_artifact`'s parameters."""

    content: str = arg(description="New complete content")


A = TypeVar("A", bound=ArtifactParams)


def _book(ctx: ToolContext) -> ArtifactBook:
    if ctx.artifacts is None:
        raise ToolFailure(
            ErrorCode.DISABLED,
            "artifacts need an agent session (they are kept with it); this context has none",
        )
    return ctx.artifacts


def _head(art: Artifact) -> str:
    return f'artifact {art.id!r} ({art.content_type}, "{art.title}") version {art.version}'


def _data(art: Artifact, *, content: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": art.id,
        "title": art.title,
        "content_type": art.content_type,
        "version": art.version,
        "chars": len(art.content),
    }
    if content:
        out["content"] = art.content
    return out


class _ArtifactTool(TypedTool[A]):
    """Calls on one artifact run in the order written."""

    def resources(self, params: Mapping[str, Any], ctx: ToolContext) -> frozenset[str]:
        """The artifact's id."""
        return frozenset({f"artifact:{self.args(params).id}"})


class CreateArtifact(_ArtifactTool[CreateArtifactParams]):
    """`create_artifact(id, content_type, title, content)`."""

    name = "create_artifact"
    display_name = "Create Artifact"
    description = (
        "Create a new artifact: a versioned document kept with this session (a task plan, "
        "research notes, a report) that every agent of the session can read and update."
    )
    example = {"id": "task_plan", "title": "Research plan", "content": "# Plan\n1. [ ] Search"}

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Create artifact {a.id}: {a.title}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Store version 1."""
        a = self.args(params)
        art = _book(ctx).create(
            a.id,
            a.title,
            a.content_type,
            a.content,
        )
        return ToolResult.ok(f"Created {_head(art)}.", data=_data(art))


class ReadArtifact(_ArtifactTool[ReadArtifactParams]):
    """`read_artifact(id, version?)`."""

    plan_safe = True

    name = "read_artifact"
    display_name = "Read Artifact"
    description = "Read an artifact's content: the latest version, or any earlier one."

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        a = self.args(params)
        return f"Read artifact {a.id}" + (f" version {a.version}" if a.version else "")

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Return the content."""
        a = self.args(params)
        art = _book(ctx).read(a.id, a.version)
        latest = _book(ctx).read(art.id).version
        note = "" if art.version == latest else f" (the latest is version {latest})"
        return ToolResult.ok(
            f"{_head(art)}{note}:\n{art.content}",
            display=f"Read {_head(art)}",
            data=_data(art, content=True) | {"latest_version": latest},
        )


class UpdateArtifact(_ArtifactTool[UpdateArtifactParams]):
    """`update_artifact(id, old_str, new_str)`: one replacement, fuzzy like file edits."""

    name = "update_artifact"
    display_name = "Update Artifact"
    description = (
        "Update artifact content by replacing old text with new text. old_str should be "
        "copied from the artifact and match one place; small differences (whitespace, "
        "indentation, line endings, a near match) are tolerated and reported." + ELIDE_IN_FIND
    )

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Update artifact {self.args(params).id}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Apply the pair through the edit engine and store the result as a new version."""
        book = _book(ctx)
        a = self.args(params)
        art = book.read(a.id)
        pair = Pair(a.old_str, a.new_str)
        try:
            outcome = apply_edits(art.content, [pair], path=f"artifact {art.id}")
        except EditError as exc:
            raise ToolFailure(
                ErrorCode.INVALID_TOOL_INPUT, exc.message.replace("pair 1: ", "old_str: ")
            ) from None
        report = outcome.pairs[0]
        how = report.describe().replace("pair 1: ", "")
        if not outcome.changed:
            return ToolResult.ok(
                f"No change to {_head(art)}: {how}.", data=_data(art) | {"changed": False}
            )
        new = book.save(art.id, outcome.text, base_version=art.version)
        return ToolResult.ok(
            f"Updated {_head(new)} ({how}).",
            display=file_diff(art.id, outcome.diff.unified, art.content, new.content),
            data=_data(new)
            | {
                "changed": True,
                "strategy": report.strategy,
                "similarity": round(report.similarity, 3),
                "diff": outcome.diff.unified,
            },
        )


class RewriteArtifact(_ArtifactTool[RewriteArtifactParams]):
    """`rewrite_artifact(id, content)`."""

    name = "rewrite_artifact"
    display_name = "Rewrite Artifact"
    description = "Completely rewrite an artifact's content (a new version; earlier ones stay)."

    def describe(self, params: Mapping[str, Any]) -> str:
        """See `Tool.describe`."""
        return f"Rewrite artifact {self.args(params).id}"

    async def execute(self, params: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        """Store the content as a new version."""
        book = _book(ctx)
        a = self.args(params)
        art = book.read(a.id)
        new = book.save(art.id, a.content, base_version=art.version)
        return ToolResult.ok(f"Rewrote {_head(new)}.", data=_data(new))
