"""Shell sessions: a persistent terminal per agent session, one-shot commands, command
output for the model, process cleanup, and the command permission rules (docs/security.md).

Import the module you need (`karyi.shell.manager`, `karyi.shell.rules`, …): this package
imports none of them, so a front end that only captures a hook's output does not load
the terminal and the rules."""
