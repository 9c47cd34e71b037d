"""The language server: the agent over LSP (SPEC §7). `karyi lsp --stdio | --tcp`."""
