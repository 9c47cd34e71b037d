"""`session/request_permission`: the question Karyi asks before a call, and the answer
as the approval's `Decision` ("always" is remembered by agent/review/approval.py, exactly as
for the other front ends). The prompt says whether a command runs in the OS sandbox; a
command leaving the sandbox is never offered "always" (see docs/security.md).
"""

from __future__ import annotations

from acp import update_tool_call
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from karyi.acp.kinds import tool_kind
from karyi.acp.updates import confirmation_content, sandbox_line
from karyi.agent.events import ToolAwaitingPermission
from karyi.agent.review.approval import Decision

ALLOW_ONCE, ALLOW_ALWAYS, REJECT_ONCE, REJECT_ALWAYS = (
    "allow_once",
    "allow_always",
    "reject_once",
    "reject_always",
)


def options_for(event: ToolAwaitingPermission) -> list[PermissionOption]:
    """Allow once, always (this session), reject once, always; no "always allow" where
    the call may not be remembered (a command outside the sandbox)."""
    conf = event.confirmation
    offered = [PermissionOption(option_id=ALLOW_ONCE, name="Allow", kind="allow_once")]
    if conf is None or conf.always:
        offered.append(
            PermissionOption(
                option_id=ALLOW_ALWAYS, name="Always allow (this session)", kind="allow_always"
            )
        )
    offered.append(PermissionOption(option_id=REJECT_ONCE, name="Reject", kind="reject_once"))
    offered.append(
        PermissionOption(
            option_id=REJECT_ALWAYS, name="Always reject (this session)", kind="reject_always"
        )
    )
    return offered


def tool_call_for(event: ToolAwaitingPermission) -> ToolCallUpdate:
    """The call as the permission prompt shows it: title (with the sandbox verdict for a
    command, and the reason the rules ask), kind, and the diff or command."""
    conf = event.confirmation
    title = event.description
    if conf is not None and conf.sandboxed is not None:
        title = f"{title} — {sandbox_line(conf.sandboxed)}"
    if event.reason:
        title = f"{title} ({event.reason})"
    update = update_tool_call(
        event.call.id,
        title=title,
        kind=tool_kind(event.call.name),
        status="pending",
        content=confirmation_content(conf),
        raw_input=event.call.params,
    )
    return ToolCallUpdate.model_validate(update.model_dump(exclude={"session_update"}))


def decision_from(response: RequestPermissionResponse) -> Decision:
    """The client's answer as a Decision; `cancelled` (the prompt turn was cancelled, or
    the user dismissed it) is a rejection the model is told about."""
    outcome = response.outcome
    if isinstance(outcome, DeniedOutcome):
        return Decision(False, "the request was cancelled before the user answered")
    assert isinstance(outcome, AllowedOutcome)
    chosen = outcome.option_id
    if chosen == ALLOW_ONCE:
        return Decision(True)
    if chosen == ALLOW_ALWAYS:
        return Decision(True, remember="session")
    if chosen == REJECT_ALWAYS:
        return Decision(False, reject_always=True)
    if chosen == REJECT_ONCE:
        return Decision(False)
    return Decision(False, f"the editor answered with an unknown option {chosen!r}")
