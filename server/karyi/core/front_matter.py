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
        meta = _plain_keys(head)
        if meta is None:
            said = " ".join(str(exc).split())
            raise FrontMatterError(f"front matter is not YAML: {said}") from None
    if meta is None:
        return {}, body
    if not isinstance(meta, dict):
        raise FrontMatterError("front matter is not a mapping of keys to values")
    return meta, body


_KEY_LINE = re.compile(r"^([A-Za-z][\w-]*):(?:[ \t]+(.*))?$")


def _plain_keys(head: str) -> dict[str, Any] | None:
    """The front matter read as plain `key: value` lines, as skills in the wild are often
    written (`description: Use when: the user asks…` is not YAML); None when it is not
    that shape either. Indented lines continue the value above; `true`/`false` are
    booleans, one pair of surrounding quotes is dropped."""
    meta: dict[str, Any] = {}
    last: str | None = None
    for line in head.split("\n"):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t" and last is not None:
            meta[last] = f"{meta[last]} {line.strip()}".strip()
            continue
        found = _KEY_LINE.match(line.rstrip())
        if found is None:
            return None
        last, value = found.group(1), (found.group(2) or "").strip()
        if value[:1] in ("[", "{", "|", ">", "&", "*", "!", ":", "-", "?", "%", "@"):
            return None  # YAML's own syntax that did not parse: not a plain value
        meta[last] = value
    for key, value in meta.items():
        if value in ("true", "false"):
            meta[key] = value == "true"
        elif len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":
            meta[key] = value[1:-1]
    return meta or None
