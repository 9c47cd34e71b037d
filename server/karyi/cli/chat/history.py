"""A stored session drawn in the chat from its transcript (docs/sessions.md): each turn's
prompt, prose, collapsed thinking, calls as finished cards, steers and notices; a turn
rewound out of the conversation is one dim line."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from karyi.agent.session.transcript import (
    Block,
    CallBlock,
    NoticeBlock,
    SteerBlock,
    TextBlock,
    Transcript,
    Turn,
)
from karyi.cli.chat.answer import AnswerText
from karyi.cli.chat.feed import Feed
from karyi.cli.chat.widgets import NoticeLine, ThinkingBlock, ToolCard, UserMessage

SHOWN_TURNS = 20
"""Stored turns drawn when a session opens (the latest): a screen laid out with every
turn of a long session would redraw slowly; `/history` draws them all."""


def draw_transcript(feed: Feed, transcript: Transcript, *, every: bool = False) -> None:
    """The latest turns of `transcript` (`every`: all of them) at the end of the
    conversation, mounted at once."""
    turns = transcript.turns if every else transcript.turns[-SHOWN_TURNS:]
    widgets: list[Widget] = []
    if len(turns) < len(transcript.turns):
        hidden = len(transcript.turns) - len(turns)
        said = f"… {hidden} earlier turn(s) not drawn: /history draws them all"
        widgets.append(NoticeLine(Text(said), classes="dim"))
    for turn in turns:
        widgets += turn_widgets(turn)
    if widgets:
        widgets.append(NoticeLine(Text("─── above: earlier in this session ───"), classes="dim"))
        feed.log.mount_all(widgets)
        feed.log.scroll_end(animate=False)


def turn_widgets(turn: Turn) -> list[Widget]:
    """One stored turn as the chat shows it."""
    if turn.status == "rewound":
        return [NoticeLine(Text(f"↶ rewound: {turn.prompt.splitlines()[0][:100]}"), classes="dim")]
    out: list[Widget] = [UserMessage(turn.prompt)]
    out += [w for b in turn.blocks if (w := _block(b)) is not None]
    if turn.stop_reason and turn.stop_reason not in ("end_turn", "final_answer"):
        out.append(NoticeLine(Text(f"— {turn.stop_reason.replace('_', ' ')}"), classes="dim"))
    if turn.status == "compacted":
        out.append(
            NoticeLine(Text("(the model no longer holds this turn as it was)"), classes="dim")
        )
    return out


def _block(block: Block) -> Widget | None:
    if isinstance(block, TextBlock):
        if block.channel == "thinking":
            return ThinkingBlock(block.text)
        return AnswerText(block.text) if block.text.strip() else None
    if isinstance(block, SteerBlock):
        return UserMessage(block.text, steer=True)
    if isinstance(block, NoticeBlock):
        return NoticeLine(Text(f"ℹ {block.text}"), classes="dim")
    return _card(block)


def _card(call: CallBlock) -> ToolCard:
    card = ToolCard(call.id, call.description or call.name)
    files = "  ".join(f"{f.path} +{f.added} -{f.removed}" for f in call.files)
    status = "done" if call.status == "done" else call.status
    if status == "invalid":
        status = "failed"
    card.set_status(status, detail=files or (call.decision if status != "done" else ""))
    preview = call.error if call.error and call.status != "done" else call.summary
    card.set_result("\n".join((preview or "").strip().splitlines()[:6]))
    return card
