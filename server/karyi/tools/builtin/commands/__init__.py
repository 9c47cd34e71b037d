"""Running commands: the persistent terminal and the one-shot shell tools.

`common` holds what every command tool shares (the command rules, the approval, the
shell lookup); `terminal` the tools of the session's terminal, `oneshot` the tools
that run one command alone.
"""
