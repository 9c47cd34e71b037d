"""`get_value` over ACP: a plain value (`secret="false"`) is asked through the client's
form elicitation (`elicitation/create`, mode `form`) when the client offers it; a secret
never is (docs/acp.md#secure-values). A form is ordinary UI: the client shows what is
typed, may keep it in its history or logs, and the answer crosses the protocol in clear
text, so a secret asked that way is no longer one. Secrets are stored with
`karyi var set NAME` instead.
"""

from __future__ import annotations

from typing import Protocol

from acp.schema import (
    AcceptElicitationResponse,
    CancelElicitationResponse,
    DeclineElicitationResponse,
    ElicitationFormSessionMode,
    ElicitationMode,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    OtherElicitationResponse,
)

from karyi.secrets.request import CannotAsk, ValueAnswer, ValueRequest

Answer = (
    AcceptElicitationResponse
    | DeclineElicitationResponse
    | CancelElicitationResponse
    | OtherElicitationResponse
)


class ElicitingClient(Protocol):
    """The part of the SDK's connection that sends `elicitation/create`."""

    async def create_elicitation(self, message: str, mode: ElicitationMode) -> Answer:
        """Ask the user through a form; the answer says accept, decline or cancel."""
        ...


class FormAsker:
    """`Runtime.ask_value` for a client with form elicitation."""

    def __init__(self, client: ElicitingClient) -> None:
        self.client = client

    async def __call__(self, request: ValueRequest) -> ValueAnswer | None:
        """The user's answer; None when they decline or cancel; CannotAsk for a secret."""
        if request.secret:
            raise CannotAsk(
                f"{request.key} is a secret and an editor form is not a place for one "
                "(the editor shows and may keep what is typed)"
            )
        field = ElicitationStringPropertySchema(
            type="string", title=request.key, description=request.note or None
        )
        schema = ElicitationSchema(
            type="object",
            title=request.key,
            properties={request.key: field},
            required=[request.key],
        )
        mode = ElicitationFormSessionMode(
            session_id=request.session_id,
            tool_call_id=request.call_id or None,
            requested_schema=schema,
        )
        answer = await self.client.create_elicitation(request.reason, mode)
        if not isinstance(answer, AcceptElicitationResponse) or not answer.content:
            return None
        value = answer.content.get(request.key)
        raw = getattr(value, "root", value)
        return None if raw is None else ValueAnswer(str(raw))
