"""Settings: defaults, user file, workspace file, editor, environment, flags, and above
them the organisation's managed file.

Later layers win; objects merge key by key. Every layer is checked key by key against
the schema: an unknown or invalid key is dropped with a warning that names the source,
the key and what was expected, and the lower layer's value stays in force. The
workspace file comes with the repository, so it may only tighten (docs/security.md).
Settings are loaded once and passed down; nothing reads them from a global.

- model.py, sections.py: the settings as one typed model, and from it the JSON Schema
  of every key and the defaults
- editor_schema.py: VS Code's settings schema (package.json), from the model
- reference.py: the table of docs/settings.md, from the model
- files.py: where the user and workspace files are, and reading them (JSON with comments)
- validation.py: checking a layer key by key; `SettingsWarning`
- workspace_trust.py: what a workspace file may not set, unless the user trusts it
- plugins.py, plugin_layer.py: installed plugins, and the layer each enabled one adds
  under the user's own settings (docs/extensions.md#plugins)
- managed.py, tighten.py: the organisation's managed file, and putting it above every
  layer so that nothing below loosens it (docs/security.md#managed-settings)
- loading.py: `load_settings`, layering everything above
- accessors.py: the `Settings` object: the model's typed values, and the answers that
  combine keys
"""

from karyi.settings.accessors import Settings
from karyi.settings.files import loads_jsonc, user_settings_path, workspace_settings_path
from karyi.settings.loading import ENVIRONMENT, load_settings
from karyi.settings.model import DEFAULTS, SCHEMA
from karyi.settings.validation import SettingsWarning
from karyi.settings.workspace_trust import is_trusted

__all__ = [
    "DEFAULTS",
    "ENVIRONMENT",
    "SCHEMA",
    "Settings",
    "SettingsWarning",
    "is_trusted",
    "load_settings",
    "loads_jsonc",
    "user_settings_path",
    "workspace_settings_path",
]
