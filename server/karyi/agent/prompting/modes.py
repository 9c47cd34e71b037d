"""Session modes: `plan` (only reading, searching and web tools; the model answers with
a plan) and `act` (every tool). The act turn that follows a plan carries it, as the
user left it. See docs/workflow.md#plan-mode.
"""

from __future__ import annotations

from karyi.agent.prompting.mode_names import ACT as ACT
from karyi.agent.prompting.mode_names import MODE_IDS as MODE_IDS
from karyi.agent.prompting.mode_names import MODES as MODES
from karyi.agent.prompting.mode_names import PLAN as PLAN
from karyi.agent.prompting.mode_names import Mode as Mode
from karyi.core.errors import ErrorCode
from karyi.core.results import ToolResult
from karyi.protocol.calls import ToolCall
from karyi.tools.base import Tool
from karyi.tools.registry import Toolkit


class UnknownMode(ValueError):
    """A mode that is not `plan` or `act`."""


def checked_mode(mode: str) -> str:
    """`mode` when it is one of MODE_IDS, else UnknownMode naming the ones that are."""
    if mode not in MODE_IDS:
        raise UnknownMode(f"unknown mode {mode!r}: use one of {', '.join(MODE_IDS)}")
    return mode


def offered(toolkit: Toolkit, mode: str) -> Toolkit:
    """The tools the model is told about in `mode` (plan: only the `plan_safe` ones)."""
    if mode != PLAN:
        return toolkit
    return Toolkit(toolkit.agent, {t.name: t for t in toolkit if t.plan_safe})


def plan_refusal(call: ToolCall, tool: Tool) -> ToolResult | None:
    """Why a call may not run in plan mode (None: it may)."""
    if tool.plan_safe:
        return None
    return ToolResult.fail(
        ErrorCode.PERMISSION_DENIED,
        f"{call.name} is not available in plan mode: only reading, searching and web tools "
        "run until the user switches to act mode. Answer with your plan instead.",
    )


def with_plan(text: str, plan: str) -> str:
    """The first act turn's message after a plan: the plan (as the user left it) first."""
    if not plan.strip():
        return text
    return f"Carry out this plan, agreed in plan mode:\n\n{plan.strip()}\n\n{text}".strip()


EMPTY_ASK = {
    PLAN: "Make a plan for the task so far.",
    ACT: "Go ahead.",
}


def mode_prefix(text: str) -> tuple[str | None, str]:
    """`/plan …` or `/act …` at the start of a message: (the mode, the rest). Every front
    end's input gets these (docs/workflow.md#plan-mode); other text is (None, text)."""
    head, _, rest = text.strip().partition(" ")
    mode = head[1:] if head in ("/plan", "/act") else None
    if mode is None:
        return None, text
    return mode, rest.strip() or EMPTY_ASK[mode]
