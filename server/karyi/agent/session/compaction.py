"""Keeping a long history inside the model's context window.

Before a model call, if the history would fill more than `THRESHOLD` of the window,
old tool output is elided first (it is the bulk and can be read again), keeping the
most recent results whole; if that is not enough, the oldest exchanges are dropped,
always keeping the first request. What was elided is stated to the model.
"""

from __future__ import annotations

import dataclasses

from karyi.llm.base import Message

THRESHOLD = 0.7
KEEP_RESULTS = 2
CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1600
"""A picture's cost in tokens, at most (Anthropic: width × height / 750 for the largest
picture it keeps unscaled; OpenAI's high detail is in the same range)."""
RESULTS = "tool_results"  # Message.name marking a text-dialect results message


def estimate_tokens(messages: list[Message], extra: str = "") -> int:
    """A cheap, deliberately generous token estimate (characters / 4 plus overhead)."""
    chars = len(extra) + sum(
        len(m.content)
        + sum(len(c.arguments) + len(c.name) for c in m.tool_calls)
        + sum(len(str(b.get("thinking") or b.get("data") or "")) for b in m.reasoning)
        + len(m.images) * IMAGE_TOKENS * CHARS_PER_TOKEN
        + 16
        for m in messages
    )
    return chars // CHARS_PER_TOKEN + 1


def _is_result(m: Message) -> bool:
    return m.role == "tool" or m.name == RESULTS


def compact(
    history: list[tuple[str, Message]], window: int, system: str
) -> tuple[list[tuple[str, Message]], str | None]:
    """A history that fits `THRESHOLD` of `window`, and a note for the model (or None)."""
    budget = int(window * THRESHOLD)
    messages = [m for _, m in history]
    if estimate_tokens(messages, system) <= budget:
        return history, None
    result_positions = [i for i, (_, m) in enumerate(history) if _is_result(m)]
    elide = set(result_positions[:-KEEP_RESULTS]) if len(result_positions) > KEEP_RESULTS else set()
    out = []
    elided = 0
    for i, (turn, m) in enumerate(history):
        if i in elide and not m.content.startswith("[elided"):
            elided += 1
            m = dataclasses.replace(
                m, content=f"[elided earlier tool output: {len(m.content)} characters]"
            )
        out.append((turn, m))
    notes = []
    if elided:
        notes.append(f"the output of {elided} earlier tool call(s) was elided")
    dropped = 0
    while estimate_tokens([m for _, m in out], system) > budget and len(out) > 2:
        # Drop whole exchanges after the first request, oldest first; never split a tool
        # result from the assistant message that asked for it.
        del out[1]
        dropped += 1
        while len(out) > 1 and _is_result(out[1][1]):
            del out[1]
            dropped += 1
    if dropped:
        notes.append(f"{dropped} earlier message(s) were removed")
    if not notes:
        return out, None
    return out, (
        "Note: to fit the context window, "
        + " and ".join(notes)
        + ". Read files again if you need their current content."
    )
