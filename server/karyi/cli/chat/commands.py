"""What the chat does itself with a line the user sends: `/exit`, `/help`, `/resume`,
`/model`, `/clear`, `/memory`, and `!cmd` (a command in the session's terminal). Every other line,
`/plan`, `/act`, the tasks and the custom commands included, goes to the agent, which
expands it (agent/prompting/)."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from rich.text import Text

from karyi.cli.chat.widgets import NoticeLine, ToolCard

if TYPE_CHECKING:
    from karyi.cli.chat.surface import ChatSurface

LOCAL = {
    "exit": "end the chat",
    "quit": "end the chat",
    "help": "the keys and the chat's own commands",
    "resume": "pick a stored session of this workspace (or /resume ID)",
    "model": "pick the model for the next turns (or /model provider:name)",
    "rewind": "take the session back to before one of its turns",
    "clear": "clear the screen (the session is kept)",
    "history": "draw every stored turn of the session (the latest are drawn when it opens)",
    "memory": "show the memory files the agent loads (docs/extensions.md#memory)",
}
"""The chat's own slash commands: handled here, never sent to the model."""

HELP = """\
Enter send (queued while a turn runs) · Ctrl+S send into the running turn (steer)
Esc stop the turn · Esc Esc rewind · Shift+Tab plan/act · Ctrl+D or /exit quit
Tab complete / commands and @ files · !cmd run a command in the agent's terminal
A question: y allow · a always · n reject · f reject with feedback; an edit: ↑↓ hunk,
space tick, Enter apply the ticked hunks
"""


async def run_local(app: ChatSurface, text: str) -> bool:
    """Handle `text` when it is one of the chat's own commands or `!cmd`; False: it is a
    message for the agent."""
    if text.startswith("!") and len(text) > 1:
        app.run_worker(shell_command(app, text[1:].strip()), group="shell")
        return True
    if not text.startswith("/"):
        return False
    name, _, rest = text[1:].partition(" ")
    if name not in LOCAL:
        return False
    rest = rest.strip()
    if name in ("exit", "quit"):
        app.exit(0)
    elif name == "help":
        app.feed.mount(NoticeLine(Text(HELP), classes="dim"))
    elif name == "memory":
        from karyi.agent.prompting.memory_view import memory_files, memory_text

        runtime = app.runtime
        files = memory_files(runtime.workspace.folders, runtime.settings)
        shown = memory_text(files, runtime.vault.redactor.redact)
        app.feed.mount(NoticeLine(Text(shown), classes="dim"))
    elif name == "clear":
        gc.unfreeze()  # the widgets removed can be collected (collector.keep_out_of_collections)
        await app.log_view.remove_children()
    elif name == "history" and app.live is not None:
        gc.unfreeze()
        await app.log_view.remove_children()
        await app.show_history(every=True)
    else:
        from karyi.cli.chat import pickers

        action = {"resume": pickers.resume, "model": pickers.choose_model}
        opener = action.get(name, lambda a, _r: pickers.open_rewind(a))
        app.run_worker(opener(app, rest), group="pickers")
    return True


async def shell_command(app: ChatSurface, command: str) -> None:
    """`!cmd`: run `command` in the session's terminal (the one the agent's own commands
    use), its output live in a card."""
    if app.live is None or not command:
        return
    card = ToolCard(f"!{command}", f"$ {command}", status="running")
    app.feed.end_prose()
    app.feed.mount(card)
    try:
        result = await app.runtime.shell.command(app.live.id, command, mirror=card.add_output)
    except Exception as exc:  # the terminal could not run it: said on the card
        card.set_status("failed", detail=str(exc))
        return
    code = result.exit_code
    ok = code == 0
    card.set_status("done" if ok else "failed", detail=f"exit {code}" if code is not None else "")
