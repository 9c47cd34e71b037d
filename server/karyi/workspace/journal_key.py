"""The key that signs write-ahead journals, so a start trusts only its own.

A journal sits in the workspace's `.karyi/` folder, which a repository could ship: a
planted journal naming the clone's path would have the next start write bytes of the
repository's choosing. Every journal line therefore carries an HMAC under a key kept in
the user's own Karyi folder (`journal.key`, mode 0600), which no repository reaches.
Where that folder cannot hold the key, the process signs with a key of its own: its
journals still guard its writes, but a crash leaves one that no later start trusts (the
user is told, and the checkpoint puts the files back).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import logging
import os
import secrets
import stat
from functools import cache
from pathlib import Path

from karyi.core.user_dir import karyi_config_dir

log = logging.getLogger(__name__)

KEY_FILE = "journal.key"


def journal_key() -> bytes:
    """This user's journal key (created on first use), or one for this process alone."""
    return _key_in(karyi_config_dir())


@cache
def _key_in(folder: Path) -> bytes:
    path = folder / KEY_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, secrets.token_hex(32).encode())
                os.fsync(fd)
            finally:
                os.close(fd)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            st = os.fstat(fd)
            key = os.read(fd, 256).strip()
        finally:
            os.close(fd)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and len(key) == 64:
            return key
        log.warning("%s is not this user's 64-character key: journals use a process key", path)
    except OSError as exc:
        log.warning("no journal key in %s (%s): journals use a process key", folder, exc)
    return secrets.token_hex(32).encode()


def sign(text: str) -> str:
    """The line's signature under the journal key."""
    return hmac.new(journal_key(), text.encode(), hashlib.sha256).hexdigest()


def verified(text: str, signature: str) -> bool:
    """True when `signature` is `text`'s under this user's key."""
    return hmac.compare_digest(sign(text), signature)
