"""Code navigation tools over language servers (docs/tools.md#code-navigation)."""
