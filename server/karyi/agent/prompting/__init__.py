"""Prompting: what the model reads before it answers.

`system_prompt` fills the templates in `prompts/` with the workspace's facts and the
tool instructions; `rules` finds the project's written rules (AGENTS.md, .karyi/rules);
the user's message is expanded by `mentions` (`@problems`, `@terminal`, `@url:` …),
`builtin_slash` and `slash_commands` (a message that is `/NAME`); `modes` is plan mode's
prompt and the tools it allows.
"""
