"""Background tasks: agent sessions that run in their own git worktrees, several at a
time, and whose changes the user reviews and brings back at the end (docs/parallel.md).
"""
