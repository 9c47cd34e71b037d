"""The wire types of Karyi's custom LSP methods, written once.

`params.py` declares each method's parameters as attrs classes; core/typed_schema.py
derives the JSON Schema the server validates requests with (a malformed one gets -32602
naming the field). `results.py` declares the types the methods answer; each
handler's return annotation says which (`result_types` reads them; mypy checks what
they build). `typescript.py` derives
`client-vscode/src/protocol/protocol.gen.ts`, the extension's types, from both, which a test
keeps current (`make protocol` rewrites it). docs/protocol.md
documents the same methods with JSON examples.
"""
