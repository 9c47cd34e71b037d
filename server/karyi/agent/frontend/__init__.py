"""What the front ends share and nothing below them uses.

`startup` parses what every subcommand needs (exit codes, the workspace, settings, the
tool profile); `tasks` holds the editor tasks (explain, fix, write tests) that the
language server's editor commands and ACP's slash commands both offer.
"""
