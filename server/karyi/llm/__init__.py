"""Model providers: OpenAI-compatible, Anthropic, and scripted replays (SPEC §6).

`factory.create_provider(settings)` builds the one `settings.model` names; base.py is
the contract every provider keeps. This package's `__init__` stays empty of imports so
that settings.py can read families.py without loading the SDKs.
"""
