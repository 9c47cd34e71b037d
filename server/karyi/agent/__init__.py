"""The agent: the turn loop, tool execution, sessions (SPEC §6)."""
