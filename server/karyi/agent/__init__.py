"""The agent: the turn loop, tool execution and approval, sessions (docs/architecture.md)."""
