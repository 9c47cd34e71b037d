"""The provider prefixes of `settings.model` (`openai:`, `anthropic:`, `deepseek:`, ...).

Pure data, no SDK imports: the settings (settings/accessors.py) read the usual key
variables from here, and the factory the API each prefix speaks, its default base URL
and whether it needs a key.
Every prefix but `anthropic:` and `script:` is an OpenAI-compatible server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Api = Literal["openai", "anthropic", "script"]


@dataclass(frozen=True)
class Family:
    """One provider prefix: which API it speaks, where, and with which key."""

    name: str
    api: Api
    base_url: str | None = None
    key_env: str | None = None
    needs_key: bool = True
    needs_base_url: bool = False
    key_header: str | None = None
    """A header that carries the key besides `Authorization` (Azure's `api-key`)."""
    max_tokens_field: str = "max_tokens"


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family(
            "openai",
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            max_tokens_field="max_completion_tokens",
        ),
        Family("anthropic", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
        Family(
            "azure",
            "openai",
            None,
            "AZURE_OPENAI_API_KEY",
            needs_base_url=True,
            key_header="api-key",
            max_tokens_field="max_completion_tokens",
        ),
        Family("deepseek", "openai", "https://api.deepseek.com", "DEEPSEEK_API_KEY"),
        Family("ark", "openai", "https://ark.cn-beijing.volces.com/api/v3", "ARK_API_KEY"),
        Family("openrouter", "openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        Family("groq", "openai", "https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        Family("mistral", "openai", "https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        Family("together", "openai", "https://api.together.xyz/v1", "TOGETHER_API_KEY"),
        Family(
            "gemini",
            "openai",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
            "GEMINI_API_KEY",
        ),
        Family("ollama", "openai", "http://localhost:11434/v1", needs_key=False),
        Family("vllm", "openai", "http://localhost:8000/v1", needs_key=False),
        Family("llamacpp", "openai", "http://localhost:8080/v1", needs_key=False),
        Family("lmstudio", "openai", "http://localhost:1234/v1", needs_key=False),
        Family("script", "script", needs_key=False),
    ]
}
ALIASES = {"llama-cpp": "llamacpp", "llama.cpp": "llamacpp", "volcengine": "ark"}


DEFAULT_CONTEXT_WINDOW = 128_000
_WINDOWS: list[tuple[str, int]] = [
    (r"gpt-4\.1", 1_047_576),
    (r"gpt-5", 400_000),
    (r"gpt-4o|gpt-4-turbo|chatgpt-4o", 128_000),
    (r"gpt-4", 8_192),
    (r"gpt-3\.5", 16_385),
    (r"o[134]\b|o[134]-", 200_000),
    (r"claude", 200_000),
    (r"gemini", 1_048_576),
    (r"deepseek", 128_000),
    (r"doubao", 128_000),
]


def context_window(model: str) -> int:
    """Tokens a model accepts, by family name; 128k when the name says nothing.

    Local servers (Ollama, llama.cpp) often run a model with a smaller window than it
    supports: set `llm.contextWindow` for them.
    """
    name = model.lower().rsplit("/", 1)[-1]
    for pattern, tokens in _WINDOWS:
        if re.match(pattern, name):
            return tokens
    return DEFAULT_CONTEXT_WINDOW


def family(prefix: str) -> Family | None:
    """The family for a model prefix (case-insensitive, with a few aliases)."""
    key = prefix.lower()
    return FAMILIES.get(ALIASES.get(key, key))


def key_variable(prefix: str) -> str | None:
    """The usual API key variable for a model prefix (`KARYI_API_KEY` comes first)."""
    found = family(prefix)
    return found.key_env if found else None
