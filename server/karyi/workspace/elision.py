"""Which lines a model wrote to leave code out (docs/tools.md#elided-edits).

Models abbreviate: `...` where unchanged lines stay, or a comment such as
`# ... existing code ...` or `// ... rest of the function unchanged ...`. Such a line is
an elision when, stripped, it is `...` or `…`, or a comment in the file's language whose
text holds an ellipsis and otherwise only words of `WORDS` (or, with one of the `KEYS`
words, a few others such as a function's name). The edit engine (`elided_pairs`,
`elided_write`) reads those lines as "the file's lines here", never as text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

HASH = (("#", ""),)
SLASHES = (("//", ""), ("/*", "*/"), ("{/*", "*/}"))
MARKUP = (("<!--", "-->"),)
DASHES = (("--", ""),)
ANY_STYLE = (*SLASHES, *HASH, *MARKUP, *DASHES, (";", ""))
"""Comment forms of a file whose language Karyi does not know: every common one."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SUFFIXES: dict[str, tuple[tuple[str, str], ...]] = {
    **dict.fromkeys(
        _words(
            ".py .pyi .sh .bash .zsh .rb .pl .r .yml .yaml .toml .cfg .conf .mk .cmake .nix "
            ".ex .exs"
        ),
        HASH,
    ),
    **dict.fromkeys(
        _words(
            ".js .jsx .mjs .cjs .ts .tsx .mts .cts .go .rs .c .h .cc .cpp .cxx .hpp .hh .java .kt "
            ".kts .cs .swift .scala .dart .php .groovy .gradle .zig .proto .vue .svelte .scss .less"
        ),
        (*SLASHES, *MARKUP),
    ),
    ".css": (("/*", "*/"),),
    **dict.fromkeys(_words(".html .htm .xml .md .markdown .svg"), MARKUP),
    **dict.fromkeys(_words(".sql .lua .hs .elm"), DASHES),
    **dict.fromkeys(_words(".lisp .el .clj .scm .ini"), ((";", ""), ("#", ""))),
}
_NAMES = {"makefile": HASH, "dockerfile": HASH, "gnumakefile": HASH}


_ELLIPSIS = re.compile(r"\.{3,}|…")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_']*")
_ALLOWED = re.compile(r"[\w\s().,:;'\"`\-\[\]/<>=]*")
WORDS = _words(
    """existing code unchanged rest of the file remains remain remaining same keep keeps kept
    other others previous previously as before omitted omit here more lines line methods
    method functions function class classes imports import implementation body etc and is
    are stays stay unmodified untouched no changes change to this that above below original
    content contents elided skipped snip truncated for brevity in between fields properties
    definitions tests cases handlers logic code's a an it from with all"""
)
"""Words an elision comment may hold besides its ellipsis."""
KEYS = _words(
    """existing unchanged rest omitted remains remain same kept keep previous other
    unmodified untouched elided skipped snip original truncated brevity"""
)
"""Words that make a comment an elision even with a few other words (a function's name)."""
MAX_OTHER_WORDS = 3


def comment_forms(path: str) -> tuple[tuple[str, str], ...]:
    """The comment forms (opening, closing) of the file's language, by its name."""
    p = PurePosixPath(path.replace("\\", "/"))
    forms = _NAMES.get(p.name.lower()) or _SUFFIXES.get(p.suffix.lower())
    return forms or ANY_STYLE


def is_elision(line: str, forms: Sequence[tuple[str, str]]) -> bool:
    """True when the line stands for left-out lines rather than for itself."""
    s = line.strip()
    if s in ("...", "…"):
        return True
    for opening, closing in forms:
        if s.startswith(opening) and s.endswith(closing) and len(s) > len(opening + closing):
            return _elision_text(s[len(opening) : len(s) - len(closing)])
    return False


def _elision_text(body: str) -> bool:
    """A comment's text is an elision: an ellipsis, and words that say "unchanged"."""
    if not _ELLIPSIS.search(body):
        return False
    rest = _ELLIPSIS.sub(" ", body)
    if not _ALLOWED.fullmatch(rest):
        return False
    words = [w.lower() for w in _WORD.findall(rest)]
    other = [w for w in words if w not in WORDS]
    if not other:
        return True
    return len(other) <= MAX_OTHER_WORDS and any(w in KEYS for w in words)


def elided_lines(lines: Sequence[str], path: str) -> list[int]:
    """Indices of the lines that are elisions in a file named `path`."""
    forms = comment_forms(path)
    return [i for i, ln in enumerate(lines) if _could_be(ln) and is_elision(ln, forms)]


def looks_elided(lines: Sequence[str]) -> list[int]:
    """Indices of the lines that would be elisions in some language (for a new file)."""
    return [i for i, ln in enumerate(lines) if _could_be(ln) and is_elision(ln, ANY_STYLE)]


def _could_be(line: str) -> bool:
    return "..." in line or "…" in line
