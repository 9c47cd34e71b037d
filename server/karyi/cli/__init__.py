"""The terminal front end: `karyi run`, `exec`, `tools`, `var` and `mcp`.

`command` holds every subcommand's arguments (the launcher `karyi.main` registers them
next to `karyi lsp` and `karyi gateway`); one module per subcommand runs it (`run`,
`exec` with `tools`, `var`, `mcp`). `view` draws a turn on the terminal, `ask` asks
the user there (approvals, secret values), `common` has what the commands share.
"""
