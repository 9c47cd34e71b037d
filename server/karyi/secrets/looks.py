"""Heuristics for what looks like a credential: a variable's name, or a value's shape.

Used by `get_env_variable` (the agentxml profile), which refuses credential-looking names and masks
credential-looking values. Heuristics have false negatives; they are a second line
behind the rule that secrets live in the vault, not in the environment the model reads.
"""

from __future__ import annotations

import math
import re
from collections import Counter

_EXACT_PARTS = {
    "KEY",
    "KEYS",
    "PASS",
    "AUTH",
    "OAUTH",
    "PAT",
    "PIN",
    "OTP",
    "COOKIE",
    "COOKIES",
    "SIGNATURE",
    "SALT",
    "DSN",
}
_ANYWHERE = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDS",
    "PRIVATE",
    "APIKEY",
    "ACCESSKEY",
    "BEARER",
    "CONNECTION_STRING",
)
_HARMLESS = {"PWD", "OLDPWD"}

_VALUE_PATTERNS = [
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)"),
    re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}"),
    re.compile(r"\b(?:sk|rk|pk)[-_](?:live_|test_|proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_-]{30,}"),
    re.compile(r"\bnpm_[A-Za-z0-9]{30,}"),
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
]
_URL_PASSWORD = re.compile(r"(?P<head>[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:)(?P<pw>[^@\s/]+)(?=@)")
_TOKENISH = re.compile(r"[A-Za-z0-9+/=_\-]{32,}")
MASK = "[redacted: looks like a credential]"


def looks_like_credential_name(name: str) -> bool:
    """Whether an environment variable's name suggests it holds a credential."""
    upper = name.upper()
    if upper in _HARMLESS:
        return False
    parts = set(re.split(r"[^A-Z0-9]+", upper))
    if parts & _EXACT_PARTS:
        return True
    return any(word in upper for word in _ANYWHERE)


def _entropy(text: str) -> float:
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _random_looking(token: str) -> bool:
    classes = sum(bool(re.search(p, token)) for p in (r"[a-z]", r"[A-Z]", r"[0-9]", r"[+/=_\-]"))
    return classes >= 3 and _entropy(token) >= 4.0 and not token.startswith("/")


def mask_credentials(value: str) -> tuple[str, int]:
    """`value` with credential-looking parts masked, and how many were masked."""
    count = 0

    def mask(_m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return MASK

    for pattern in _VALUE_PATTERNS:
        value = pattern.sub(mask, value)

    def url(m: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return m.group("head") + MASK

    value = _URL_PASSWORD.sub(url, value)
    value = _TOKENISH.sub(lambda m: mask(m) if _random_looking(m.group(0)) else m.group(0), value)
    return value, count
