"""`karyi chat` (and `karyi` alone on a terminal): the full-screen terminal chat, built on
Textual. It drives the same `AgentHost` as the editors' front ends and renders the same
events and transcript; nothing of the agent is re-implemented here (docs/terminal.md).

Textual is imported only when the chat opens, so no other command pays for it.
"""
