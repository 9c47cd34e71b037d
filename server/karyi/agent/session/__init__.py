"""Sessions: what a conversation keeps and what survives a restart.

`store` is the SQLite session database under `.karyi/`; `conversation` is one live
conversation (history, dialect state, persistence); `compaction` keeps a long history
inside the context window; `checkpoints` snapshots the workspace in a shadow git
repository; `artifacts` and `todos` are the session's documents and task list.
"""
