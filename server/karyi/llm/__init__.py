"""Model providers: OpenAI-compatible, Anthropic, and scripted replays (SPEC §6)."""
