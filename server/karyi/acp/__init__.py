"""The Agent Client Protocol front end (`karyi acp`): Karyi in Zed, JetBrains IDEs and
Neovim agent panels. A thin adapter over `karyi.agent`; see docs/acp.md."""
