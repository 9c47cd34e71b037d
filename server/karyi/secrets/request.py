"""What `get_value` asks a front end, and what the front end answers.

The request never carries a value; the answer is the only object that does, and a
secret's goes from the front end straight into the vault, never into a transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ValueRequest:
    """The model asks the user for the value `key`, saying why: a secret unless `secret`
    is False (a URL, a user name: the answer then goes to the model as it is)."""

    key: str
    reason: str
    note: str = ""
    exists: bool = False
    session_id: str = ""
    call_id: str = ""
    secret: bool = True


class CannotAsk(Exception):
    """The front end can ask its user, but not for this value (a secret, where the only
    way to ask is a visible form: ACP elicitation, docs/acp.md#secure-values)."""


@dataclass(frozen=True)
class ValueAnswer:
    """The user's answer: the value, and whether to keep it (with a note) for later sessions."""

    value: str = field(repr=False)
    save: bool = False
    note: str = ""
