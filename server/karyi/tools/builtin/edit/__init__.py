"""Editing files in place: every profile's find/replace and insert tools.

`plan` works an edit out against the file's current text and writes it; `pairs` holds
the `edit` tool that takes find/replace pairs for several files, `replace` the
one-replacement tools, `insert` the insertion at a character position.
"""
