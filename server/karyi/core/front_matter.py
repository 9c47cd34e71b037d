"""YAML front matter: the `---` block at the top of a Markdown file that skills,
commands and agents in the ecosystem's formats carry (docs/extensions.md#skills)."""

from __future__ import annotations

import re
from typing import Any


class FrontMatterError(ValueError):
    """A front matter that cannot be used (the message says why, in one line)."""


def split_front_matter(text: str) -> tuple[str | None, str]:
    """(the YAML between the leading `---` lines or None, the rest)."""
    text = text.lstrip("\ufeff").replace("\r\n", "\n")
    if not text.startswith("---\n"):
        return None, text
    end = re.search(r"^---[ \t]*$", text[4:], re.MULTILINE)
    if end is None:
        return None, text
    return text[4 : 4 + end.start()], text[4 + end.end() :]


def front_matter(text: str, *, required: bool = True) -> tuple[dict[str, Any], str]:
    """(the front matter as a mapping, the body). A missing block is an error when
    `required`, else an empty mapping; YAML that does not parse, or is not a mapping,
    is always one (FrontMatterError)."""
    head, body = split_front_matter(text)
    if head is None:
        if required:
            raise FrontMatterError("no front matter: the file must start with a '---' block")
        return {}, body
    import yaml  # with the first front matter: loading settings needs none

    # libyaml's safe loader where PyYAML was built with it (about 6x faster), else PyYAML's.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        meta = yaml.load(head, Loader=loader)  # a safe loader either way
    except yaml.YAMLError as exc:
        raise FrontMatterError(f"front matter is not YAML: {' '.join(str(exc).split())}") from None
    if meta is None:
        return {}, body
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return meta, body
