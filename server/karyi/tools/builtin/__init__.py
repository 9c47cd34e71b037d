"""The built-in tools, one module per feature; `tools/profiles.py` says which profile
has which.

Each profile's tool (its name, parameters and result shape) is a thin face declared in
the module of the feature it shows, over that feature's one implementation:
`read/` reading files, `search` grep/glob/listings, `write` whole-file writes,
`edit/` changes inside a file, `fileops` delete/copy/move/mkdir/info, `commands/` the
terminal and one-shot commands, `web`, `memory`, `artifacts`, `values` (secrets asked
of the user), `system` (machine facts, environment variables), `subagents`. Shared by
several features: `fileio` (reads and writes through the document store, on the
record) and `mutating` (the approval and diff of every tool that changes files).
"""
