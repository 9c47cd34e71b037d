"""The language server: the agent over LSP (docs/protocol.md, "The language server").

`karyi lsp --stdio | --tcp`. `features.py` lists every method and command it serves.
"""
