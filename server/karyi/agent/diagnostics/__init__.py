"""Diagnostics: what the code's checkers say about the files the agent touched.

`problems` turns the diagnostics before and after an edit into what the model is told
(added and fixed, per file); `lsp_clients` is Karyi's own language-server client, which
starts ruff or a type checker where no editor gives diagnostics (the terminal, the
gateway, ACP). Nothing here knows about turns or sessions.
"""
