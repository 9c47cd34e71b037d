"""Model providers: OpenAI-compatible, Anthropic, and scripted replays (docs/models.md).

`factory.create_provider(settings)` builds the one `settings.model` names; base.py is
the contract every provider keeps. This package's `__init__` stays empty of imports so
that the settings package can read families.py without loading the SDKs.
"""
