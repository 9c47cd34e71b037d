"""`karyi run --session ID`: the last turns of the session, shown before it goes on.

A user who picks a session up in a terminal sees where it stood, from the transcript
every front end renders (docs/sessions.md): what they asked, what the agent said, which
calls it made and what they changed. Long prose is cut to its first lines.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from karyi.agent.frontend.startup import UsageError
from karyi.agent.session.checkpoints import CheckpointError
from karyi.agent.session.rewind import HistoryError, RewindWhat
from karyi.agent.session.transcript import (
    Block,
    CallBlock,
    NoticeBlock,
    SteerBlock,
    TextBlock,
    Transcript,
    Turn,
)
from karyi.agent.turn.loop import Agent
from karyi.agent.turn.timeline import rewind_agent, transcript_of

PAST_TURNS = 3
PROSE_LINES = 4
LINE_WIDTH = 160


def print_past_turns(err: Console, transcript: Transcript, n: int = PAST_TURNS) -> None:
    """The last `n` turns of `transcript` on `err`, dimmed, with a rule before and after;
    each numbered as `--rewind N` takes it (rewound turns are not shown)."""
    kept = current_turns(transcript)
    turns = kept[-n:]
    if not turns:
        return
    total = len(kept)
    shown = f"last {len(turns)} of {total} turns" if total > len(turns) else f"{total} turn(s)"
    err.rule(f"earlier in this session ({shown})", style="dim")
    for number, turn in enumerate(turns, start=total - len(turns) + 1):
        err.print(Text.assemble((f"[{number}] › ", "bold cyan"), (_cut(turn.prompt), "bold")))
        for block in turn.blocks:
            if (line := _block(block)) is not None:
                err.print(line)
        if turn.status == "compacted":
            err.print(Text("  (the model no longer holds this turn as it was)", style="dim"))
    err.rule(style="dim")


def current_turns(transcript: Transcript) -> list[Turn]:
    """The turns still in the conversation, numbered from 1 by `--rewind`."""
    return [t for t in transcript.turns if t.status != "rewound"]


async def rewind_first(err: Console, agent: Agent, number: int, what: RewindWhat) -> None:
    """`--rewind N`: take the session back to before its `number`th turn, say what
    changed and which of the user's files were kept (UsageError: no such turn)."""
    turns = current_turns(transcript_of(agent))
    if not 1 <= number <= len(turns):
        have = f"1 to {len(turns)}" if turns else "none: it has no turns"
        raise UsageError(f"--rewind {number}: this session's turns are {have}")
    try:
        done = await rewind_agent(agent, turns[number - 1].id, what)
    except (HistoryError, CheckpointError) as exc:
        raise UsageError(f"--rewind {number}: {exc}") from None
    said = [f"rewound to before turn {number}"]
    if done.conversation:
        said.append(f"{done.plan.turns} turn(s) out of the conversation")
    if done.restored:
        said.append(f"{len(done.restored)} file(s) restored")
    err.print(Text("↶ " + "; ".join(said), style="bold yellow"))
    if done.kept:
        kept = ", ".join(done.kept)
        err.print(Text(f"  kept your changes to {kept} (not changed by the agent)", style="yellow"))
    if done.undo_checkpoint:
        undo = done.undo_checkpoint[:12]
        err.print(Text(f"  the code before the rewind is checkpoint {undo}", style="dim"))


def _block(block: Block) -> Text | None:
    if isinstance(block, TextBlock):
        if block.channel == "thinking":
            return None
        return Text("  " + _cut(block.text).replace("\n", "\n  "), style="dim")
    if isinstance(block, SteerBlock):
        return Text.assemble(("  ↪ ", "cyan"), (_cut(block.text, 1), "cyan"))
    if isinstance(block, NoticeBlock):
        shown = block.notice != "checkpoint"
        return Text(f"  ℹ {block.text}", style="dim yellow") if shown else None
    return _call(block)


def _call(call: CallBlock) -> Text:
    ok = call.status == "done"
    mark, colour = ("✓ ", "green") if ok else ("✗ ", "red")
    line = Text.assemble(("  " + mark, colour), (call.name, "bold"))
    if call.status != "done":
        line.append(f"  {call.status}", style=colour)
    for f in call.files:
        line.append(f"  {f.path} +{f.added} -{f.removed}", style="dim")
    if call.error and not ok:
        line.append(f"  {_cut(call.error, 1)}", style="dim")
    return line


def _cut(text: str, lines: int = PROSE_LINES) -> str:
    """The first `lines` lines of `text`, each at most `LINE_WIDTH` characters."""
    kept = text.strip().splitlines()
    out = [line if len(line) <= LINE_WIDTH else line[: LINE_WIDTH - 1] + "…" for line in kept]
    more = len(out) > lines
    return "\n".join(out[:lines]) + ("\n…" if more else "")
