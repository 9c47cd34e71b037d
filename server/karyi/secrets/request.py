"""What `get_value` asks a front end, and what the front end answers.

The request never carries a value; the answer is the only object that does, and it goes
from the front end straight into the vault, never into a transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class ValueRequest:
    """The model asks the user for the secret `key`, saying why."""

    key: str
    reason: str
    note: str = ""
    exists: bool = False
    session_id: str = ""
    call_id: str = ""


@dataclass(frozen=True)
class ValueAnswer:
    """The user's answer: the value, and whether to keep it (with a note) for later sessions."""

    value: str = field(repr=False)
    save: bool = False
    note: str = ""
