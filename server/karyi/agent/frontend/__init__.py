"""What the front ends share and nothing below them uses: `startup` parses what every
subcommand needs (exit codes, the workspace, settings, the tool profile). The editor
tasks they all offer are prompts, so they live in `agent/prompting/tasks.py`.
"""
