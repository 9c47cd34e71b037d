"""`/review` in an ACP session: the code review of docs/review.md, its findings listed in
the agent's answer (ACP has no diagnostics). `/review` reviews the uncommitted work;
`/review --base REF`, `/review --commit SHA` and paths narrow it as `karyi review` does."""

from __future__ import annotations

import asyncio
import shlex
from typing import TYPE_CHECKING, Any, Protocol

from acp import update_agent_message_text
from acp.schema import PromptResponse

if TYPE_CHECKING:
    from karyi.agent.code_review.runner import Review
    from karyi.agent.runtime import Runtime

COMMAND = "/review"


class ReviewSession(Protocol):
    """What `/review` takes from the ACP session it runs in (acp/session.py)."""

    @property
    def id(self) -> str: ...
    @property
    def runtime(self) -> Runtime: ...
    @property
    def client(self) -> Any: ...


def is_review(text: str) -> bool:
    """Whether the prompt is the `/review` command."""
    return text == COMMAND or text.startswith(COMMAND + " ")


def _options(words: list[str]) -> dict[str, Any]:
    """`--base REF`, `--commit SHA` and paths; anything else starting with `--` is refused."""
    out: dict[str, Any] = {"paths": []}
    while words:
        word = words.pop(0)
        if word in ("--base", "--commit") and words:
            out[word[2:]] = words.pop(0)
        elif word.startswith("--"):
            raise ValueError(f"/review: unknown option {word} (use --base REF or --commit SHA)")
        else:
            out["paths"].append(word)
    return out


async def run(session: ReviewSession, text: str) -> PromptResponse:
    """Review the change the command names and answer with its findings."""
    from karyi.agent.code_review.changes import ChangeError, collect
    from karyi.agent.code_review.runner import run_review

    async def say(message: str) -> None:
        await session.client.session_update(session.id, update_agent_message_text(message))

    root = session.runtime.workspace.root
    try:
        a = _options(shlex.split(text[len(COMMAND) :]))
        paths = [str(root / p) for p in a["paths"]]
        change = await asyncio.to_thread(
            collect, root, base=a.get("base"), commit=a.get("commit"), paths=paths
        )
    except (ValueError, ChangeError) as exc:
        await say(f"{exc}\n")
        return PromptResponse(stop_reason="end_turn")
    if change.empty:
        await say(f"Nothing to review: no changed lines in the {change.label}.\n")
        return PromptResponse(stop_reason="end_turn")
    await say(f"Reviewing the {change.label} ({len(change.lines)} file(s))…\n\n")
    done = await run_review(session.runtime, change)
    await say(listing(done))
    return PromptResponse(stop_reason="end_turn")


def listing(done: Review) -> str:
    """The findings as Markdown: one item per finding with its place, reasons and fix."""
    from karyi.agent.code_review.findings import SEVERITIES

    counts = ", ".join(f"{sum(f.severity == s for f in done.findings)} {s}" for s in SEVERITIES)
    head = (
        f"**{len(done.findings)} finding(s)** ({counts}) · {done.sorted.dropped} dropped off "
        f"the change · {done.sorted.merged} merged · {done.tokens:,} tokens"
    )
    if done.cost is not None:
        head += f" · ${done.cost:.4f}"
    items = []
    for f in done.findings:
        where = f"{f.path}:{f.line}" + (f"-{f.end_line}" if f.end_line != f.line else "")
        item = f"- **{f.severity}** `{where}` {f.title} ({', '.join(f.reviewers)})\n  {f.body}"
        if f.suggestion is not None:
            item += f"\n  Suggestion:\n  ```\n{f.suggestion.rstrip()}\n  ```"
        items.append(item)
    return "\n".join([head, "", *items]) + "\n"
