"""The terminal front end: `karyi run`, `exec`, `tools`, `var` and `mcp`.

One module per subcommand (`run`, `exec`, `var`, `mcp`), the terminal view of a turn
and its questions to the user (`view`), and what they share (`common`). The launcher
`karyi.main` registers these subcommands next to `karyi lsp` and `karyi gateway`.
"""
