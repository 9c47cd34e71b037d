"""Diagnostics: what the code's checkers say about the files the agent touched.

`problems` turns the diagnostics before and after an edit into what the model is told
(added and fixed, per file); `language_servers` is the problem source of Karyi's own
language servers, which start ruff or a type checker where no editor gives diagnostics
(the terminal, the gateway, ACP), and `lsp_clients` their client, imported with the
first check. Nothing here knows about turns or sessions.
"""
