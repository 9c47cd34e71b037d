"""What a turn's model calls cost, and when it must stop (docs/workflow.md#cost).

The meter counts tokens as the provider reports them, prices them with the settings'
`prices`, adds what the subagents this turn ran cost, and keeps the session's total in
the conversation (and so in the session store).
"""

from __future__ import annotations

from karyi.agent import events
from karyi.agent.events import Event, Subagent, TurnFinished
from karyi.agent.session.conversation import Conversation
from karyi.agent.turn.notices import OnceNotices
from karyi.llm.base import Usage
from karyi.llm.prices import Price, parse_prices, price_of
from karyi.settings import Settings


class CostMeter:
    """Tokens and cost of the running turn, and the session's total."""

    def __init__(self, conversation: Conversation, notices: OnceNotices) -> None:
        self.conversation = conversation
        self.notices = notices
        self.tokens = (0, 0, 0)
        """(input, output, cached input) tokens of the running turn."""
        self._price: Price | None = None
        self._settings: Settings | None = None
        self._cost_before = 0.0
        self._subagent_cost = 0.0

    def start(self, model_label: str, settings: Settings) -> None:
        """Price `model_label` for a new turn; say once when a cost limit cannot apply."""
        self.tokens = (0, 0, 0)
        self._price = price_of(model_label, parse_prices(settings.values.get("prices") or {}))
        self._settings = settings
        self._cost_before = self.conversation.cost
        self._subagent_cost = 0.0
        if self._price is None and settings.agent.max_cost_per_turn is not None:
            self.notices.say(
                "cost",
                f"no price is known for {model_label}: agent.maxCostPerTurn cannot "
                "apply; set its prices in settings `prices` (docs/workflow.md#cost)",
            )

    def add(self, usage: Usage) -> events.Usage:
        """Count a usage report; the update every front end shows."""
        tin, tout, cached = self.tokens
        self.tokens = (
            tin + usage.input_tokens,
            tout + usage.output_tokens,
            cached + usage.cache_read_tokens,
        )
        turn, session = self.costs()
        return events.Usage(*self.tokens, turn, session)

    def costs(self) -> tuple[float | None, float | None]:
        """(the turn's cost so far, the session's), both None without a price."""
        if self._price is None:
            return None, None
        turn = self._price.cost(*self.tokens) + self._subagent_cost
        self.conversation.cost = self._cost_before + turn
        return turn, self.conversation.cost

    def count_subagent(self, event: Event) -> None:
        """A direct subagent's finished turn adds its cost to this turn's (a subagent's
        own subagents are in its cost already)."""
        inner = event.event if isinstance(event, Subagent) else None
        if isinstance(inner, TurnFinished) and inner.turn_cost:
            self._subagent_cost += inner.turn_cost

    def over_budget(self) -> str | None:
        """Why the turn must stop at its cost limit (None: it may go on)."""
        limit = self._settings.agent.max_cost_per_turn if self._settings is not None else None
        turn, _ = self.costs()
        if limit is None or turn is None or turn <= limit:
            return None
        return (
            f"Stopped: this turn cost ${turn:.4f}, over agent.maxCostPerTurn (${limit:g}). "
            "The work so far is kept; say 'continue' to let the agent go on."
        )
