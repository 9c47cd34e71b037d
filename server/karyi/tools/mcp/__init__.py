"""MCP servers' tools, through the official `mcp` SDK (seed 003, SPEC §3)."""
