"""Secure variables (docs/security.md): a store with notes, `$KARYI{NAME}` substitution at
execution time, and redaction of every value (and its usual encodings) from results."""

from karyi.secrets.redact import Redactor
from karyi.secrets.request import ValueAnswer, ValueRequest
from karyi.secrets.store import SecretStore, StoredSecret
from karyi.secrets.substitute import UnknownVariable, placeholders, substitute
from karyi.secrets.vault import Vault

__all__ = [
    "Redactor",
    "SecretStore",
    "StoredSecret",
    "UnknownVariable",
    "ValueAnswer",
    "ValueRequest",
    "Vault",
    "placeholders",
    "substitute",
]
