"""Code navigation through language servers: definitions, references, hover, call
hierarchy, symbols and renames, from servers Karyi starts itself, one per language and
workspace (docs/context.md#where-navigation-answers-come-from).

Below the tools, above settings and the workspace: the tools in
`tools/builtin/navigation.py` and `tools/builtin/rename.py` are faces over it.
"""
