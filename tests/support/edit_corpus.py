"""A generated corpus of slipped edits for the edit engine (issue "[edit-trust]").

The contract: an edit lands exactly as meant or not at all. Each case is one intended
edit of a base file (tests/support/edit_corpus_files.py): a region of consecutive lines
that is unique in the file even ignoring all whitespace, with one or two lines changed, a
line inserted or a line deleted; the other lines of the region are unchanged context.
The model's find and replace are that region before and after, written with one kind of
slip (`KINDS`, described in `SLIPS`). `expected` is the original with exactly the
intended change in the FILE's style (its indentation, its line endings, the inner spacing
and line ends of its unchanged lines), or `REFUSE` when no edit may land.

Deterministic: one `random.Random` per kind, seeded by name; no files, no network.
"""

from __future__ import annotations

import enum
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from tests.support.edit_corpus_files import BASE_FILES, BaseFile


class Verdict(enum.Enum):
    """The expectation of a case where no edit may land."""

    REFUSE = "refuse"


REFUSE = Verdict.REFUSE

SLIPS: dict[str, str] = {
    "exact": "no slip: the region as it is in the file (control)",
    "inner_spaces": "a space doubled, an optional space dropped or an aligning run of spaces "
    "collapsed inside 1-2 context lines (find and replace alike)",
    "tab_for_space_inside": "a tab for a space inside 1-2 context lines",
    "indent_tabs_vs_spaces": "every line indented with tabs where the file uses spaces, or "
    "spaces (2, 4 or 8 per tab) where it uses tabs, one per level, changed lines included",
    "block_shift": "the whole find and replace indented more or less than the file",
    "first_line_unindented": "the first line of the find without its indentation; in half "
    "the cases the replace's first line too, in the other half the replace is indented",
    "trailing_whitespace": "trailing spaces or a tab added to 1-2 context lines, or the "
    "file's trailing whitespace left out",
    "line_endings": "LF find and replace for a CRLF file, CRLF for an LF file",
    "over_escaped": 'find and replace JSON-escaped once more (\\n, \\t, \\", \\\\) into a '
    "single line",
    "missing_blank_line": "a blank line inside the region left out of find and replace",
    "misremembered_line": "one context line differs from the file beyond whitespace "
    "(identifier, number, call or another statement), in find and replace alike",
    "ambiguous": "a find that, after a whitespace slip or none, fits two places",
}
"""Each slip kind and how the model's text is written."""

KINDS: tuple[str, ...] = tuple(SLIPS)
REFUSE_KINDS: frozenset[str] = frozenset({"misremembered_line", "ambiguous"})
"""The kinds whose cases expect REFUSE; every other case expects a text."""

SEED = "edit-trust-corpus-1"
PER_KIND = 100


@dataclass(frozen=True)
class Case:
    """One slipped edit: the file, what the model wrote, and what must happen."""

    kind: str
    name: str
    path: str
    original: str
    find: str
    replace: str
    expected: str | Verdict
    intended_find: str
    """The region as it is in the file (what the model meant to find)."""
    intended_replace: str
    """The region after the intended change, in the file's style."""


# -- the base files as sources ------------------------------------------------------------


@dataclass(frozen=True)
class _Source:
    base: BaseFile
    lines: tuple[str, ...]

    @property
    def path(self) -> str:
        return self.base.path

    @property
    def lang(self) -> str:
        return self.base.lang

    @property
    def eol(self) -> str:
        return "\r\n" if self.base.crlf else "\n"

    @property
    def bom(self) -> str:
        return "\ufeff" if self.base.bom else ""

    def render(self, lines: Sequence[str], eol: str | None = None) -> str:
        sep = self.eol if eol is None else eol
        return self.bom + sep.join(lines) + (sep if self.base.final_newline else "")

    @cached_property
    def text(self) -> str:
        return self.render(self.lines)

    @cached_property
    def text_lf(self) -> str:
        return self.render(self.lines, "\n")

    @cached_property
    def loose(self) -> tuple[str, ...]:
        return tuple(_loose(ln) for ln in self.lines)

    def offset(self, line: int) -> int:
        """Where line `line` (0-based) starts in `text_lf`."""
        return len(self.bom) + sum(len(ln) + 1 for ln in self.lines[:line])

    @cached_property
    def duplicates(self) -> list[list[tuple[int, int]]]:
        """Groups of separate 1-4 line windows with the same text up to a common indent."""
        groups: dict[tuple[str, ...], list[tuple[int, int]]] = {}
        for n in range(1, 5):
            for i in range(len(self.lines) - n + 1):
                w = self.lines[i : i + n]
                if not w[0].strip() or not w[-1].strip() or len("".join(map(_loose, w))) < 8:
                    continue
                groups.setdefault((str(n), *_dedent(w)), []).append((i, n))
        out = []
        for starts in groups.values():
            apart = [starts[0]]
            for s, n in starts[1:]:
                if s >= apart[-1][0] + n:
                    apart.append((s, n))
            if len(apart) >= 2:
                out.append(apart)
        return out


def sources() -> list[_Source]:
    """Every base file, decoded."""
    return [_Source(b, tuple(b.lines())) for b in BASE_FILES]


# -- small helpers --------------------------------------------------------------------------


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _split(line: str) -> tuple[str, str, str]:
    """(indentation, body, trailing whitespace)."""
    ind = _indent(line)
    body = line[len(ind) :].rstrip(" \t")
    return ind, body, line[len(ind) + len(body) :]


def _loose(line: str) -> str:
    """The line with all whitespace removed."""
    return "".join(line.split())


def _common_indent(lines: Sequence[str]) -> str:
    """The indentation every non-blank line starts with."""
    indents = [_indent(ln) for ln in lines if ln.strip()]
    if not indents:
        return ""
    first, last = min(indents), max(indents)
    k = 0
    while k < min(len(first), len(last)) and first[k] == last[k]:
        k += 1
    return first[:k]


def _dedent(lines: Sequence[str]) -> list[str]:
    cp = _common_indent(lines)
    return [ln[len(cp) :] if ln.strip() else "" for ln in lines]


def _count(text: str, sub: str) -> int:
    """Occurrences of `sub` in `text`, overlapping ones included."""
    n, pos = 0, text.find(sub)
    while pos >= 0:
        n += 1
        pos = text.find(sub, pos + 1)
    return n


def _first(text: str, sub: str) -> int:
    return text.find(sub)


def _windows(keys: Sequence[str], want: Sequence[str]) -> int:
    """How many runs of `keys` equal `want`."""
    k = len(want)
    return sum(1 for i in range(len(keys) - k + 1) if tuple(keys[i : i + k]) == tuple(want))


def _windows_skipping_blanks(keys: Sequence[str], want: Sequence[str]) -> int:
    """How many runs of the non-blank `keys` equal the non-blank `want`."""
    return _windows([k for k in keys if k], [w for w in want if w])


def _join(lines: Sequence[str], eol: str, trailing: bool) -> str:
    return eol.join(lines) + (eol if trailing else "")


def _escape(text: str) -> str:
    """The text JSON-escaped once more, as a model that double-escapes writes it."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _unescape(text: str) -> str:
    return str(json.loads(f'"{text}"'))


# -- the intended change ----------------------------------------------------------------------

_KEYWORDS = frozenset(
    (
        "and",
        "as",
        "assert",
        "async",
        "await",
        "bool",
        "break",
        "case",
        "catch",
        "char",
        "class",
        "const",
        "continue",
        "def",
        "default",
        "defer",
        "delete",
        "do",
        "double",
        "elif",
        "else",
        "enum",
        "except",
        "export",
        "extern",
        "false",
        "final",
        "finally",
        "float",
        "fn",
        "for",
        "from",
        "func",
        "function",
        "go",
        "if",
        "impl",
        "import",
        "in",
        "int",
        "interface",
        "internal",
        "is",
        "let",
        "long",
        "match",
        "mod",
        "module",
        "mut",
        "new",
        "nil",
        "none",
        "not",
        "null",
        "or",
        "override",
        "package",
        "private",
        "protected",
        "pub",
        "public",
        "raise",
        "require",
        "return",
        "self",
        "static",
        "string",
        "struct",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typedef",
        "unsigned",
        "use",
        "using",
        "var",
        "void",
        "while",
        "with",
        "yield",
        "None",
        "True",
        "False",
        "Self",
        "String",
    )
)
_NUMBER = re.compile(r"(?<![\w.$])\d+(?![\w.])")
_STRING = re.compile(r"\"([^\"\\\n]{1,40})\"|'([^'\\\n]{1,40})'")
_IDENT = re.compile(r"(?<![\w$])[A-Za-z_][A-Za-z0-9_]{2,}(?!\w)")
_OPERATORS = (
    ("==", "!="),
    ("!=", "=="),
    (" < ", " <= "),
    (" > ", " >= "),
    ("&&", "||"),
    (" + ", " - "),
    ("+=", "-="),
)


def _mut_number(body: str, rng: random.Random) -> str | None:
    found = list(_NUMBER.finditer(body))
    if not found:
        return None
    m = rng.choice(found)
    return body[: m.start()] + str(int(m.group()) + rng.randint(1, 9)) + body[m.end() :]


def _mut_string(body: str, rng: random.Random) -> str | None:
    found = list(_STRING.finditer(body))
    if not found:
        return None
    m = rng.choice(found)
    group = 1 if m.group(1) is not None else 2
    extra = rng.choice([" again", " now", "!", " (beta)", " 🔁"])
    return body[: m.end(group)] + extra + body[m.end(group) :]


def _mut_ident(body: str, rng: random.Random) -> str | None:
    found = [
        m for m in _IDENT.finditer(body) if m.group() not in _KEYWORDS and "__" not in m.group()
    ]
    if not found:
        return None
    m = rng.choice(found)
    new = m.group() + rng.choice(["_next", "2", "_tmp", "Count", "_all"])
    return body[: m.start()] + new + body[m.end() :]


def _mut_operator(body: str, rng: random.Random) -> str | None:
    found = [(a, b) for a, b in _OPERATORS if a in body]
    if not found:
        return None
    a, b = rng.choice(found)
    return body.replace(a, b, 1)


_MUTATORS: tuple[Callable[[str, random.Random], str | None], ...] = (
    _mut_number,
    _mut_string,
    _mut_ident,
    _mut_operator,
)


def _mutate(line: str, rng: random.Random) -> str | None:
    """The line with one token changed (its indentation and line end kept), or None."""
    ind, body, trail = _split(line)
    if not body:
        return None
    for mutate in rng.sample(_MUTATORS, len(_MUTATORS)):
        new = mutate(body, rng)
        if new is not None and _loose(new) != _loose(body):
            return ind + new + trail
    return None


_INSERTS: dict[str, tuple[str, ...]] = {
    "python": (
        'log.debug("retrying %s", name)',
        "# TODO: remove once the old API is gone",
        "attempts += 1",
        "# 再試行の回数を数える 🔁",
    ),
    "js": ("console.debug('retrying', name);", "// TODO: remove the old API", "attempts += 1;"),
    "ts": ("console.debug('retrying', name);", "// 再試行 🔁", "attempts += 1;"),
    "go": ('log.Printf("retrying %s", name)', "// TODO: remove the old API", "attempts++"),
    "c": ('fprintf(stderr, "retrying %s\\n", name);', "/* TODO: remove */", "attempts++;"),
    "rust": ('debug!("retrying {}", name);', "// TODO: remove the old API", "attempts += 1;"),
    "java": ('LOG.debug("retrying {}", name);', "// TODO: remove the old API", "attempts++;"),
    "csharp": ('Console.WriteLine("retrying");', "// TODO: remove the old API", "attempts++;"),
    "sh": ('log "retrying ${APP}"', "# TODO: remove the old API", "attempts=$((attempts + 1))"),
    "ruby": ("logger.debug('retrying')", "# TODO: remove the old API", "attempts += 1"),
    "sql": ("updated_at  TIMESTAMPTZ,", "-- TODO: drop after the migration"),
    "html": ('<li><a href="/help">Help</a></li>', "<!-- 更新: 毎時 -->"),
    "css": ("line-height: 1.4;", "/* TODO: dark mode */"),
    "docker": ("ENV TZ=UTC", "# TODO: pin the base image"),
    "json": ('"private": true,', '"license": "MIT",'),
}
_MAKE_RECIPE = ('@echo "  done $@"', "$(RM) $(OBJ)")
_MAKE_TOP = ("LDLIBS += -lm", "# TODO: drop the old target")
_YAML_ITEM = ("- name: DEBUG", "- run: echo done")
_YAML_KEY = ("timeout-minutes: 10", "# TODO: pin the version")
_MD_ITEM = ("- `size`: small, medium or large", "- 日本語の説明 ✨")
_MD_TEXT = ("See the changelog for details.",)
_MAKE_TARGET = re.compile(r"^[^\s=#][^=]*:(?!=)")


_LIST_LANGS = frozenset({"json", "sql", "yaml", "css", "html", "markdown"})
"""Where a new line may follow a line ending in a comma (an entry, not an argument)."""


def _opens(line: str, lang: str) -> bool:
    """True when the next line is normally indented deeper (a block or a recipe begins)."""
    stripped = line.rstrip()
    if lang == "make":
        return bool(_MAKE_TARGET.match(stripped))
    return stripped.endswith(("{", ":"))


def _continues(line: str, lang: str) -> bool:
    """True when the line goes on in the next one (arguments, a continued command)."""
    stripped = line.rstrip()
    if stripped.endswith((",", "(", "[", "\\", "=", "+", "&&", "||", "|")):
        return not (stripped.endswith(",") and lang in _LIST_LANGS)
    return False


def _inserted(lang: str, prev: str, nxt: str, rng: random.Random) -> str | None:
    """A new line to insert between `prev` and `nxt`, at the file's indentation there."""
    if not prev.strip() or not nxt.strip() or _continues(prev, lang):
        return None
    ip, inx = _indent(prev), _indent(nxt)
    if _opens(prev, lang):
        if not (len(inx) > len(ip) and inx.startswith(ip)):
            return None
        ind, ref = inx, nxt
    elif ip == inx:
        ind, ref = ip, prev
    else:
        return None
    body = _split(ref)[1]
    options: Sequence[str]
    if lang == "make":
        options = _MAKE_RECIPE if ind.startswith("\t") else _MAKE_TOP
    elif lang == "yaml":
        options = _YAML_ITEM if body.startswith("- ") else _YAML_KEY
    elif lang == "markdown":
        options = _MD_ITEM if body.startswith("- ") else _MD_TEXT
    else:
        options = _INSERTS[lang]
    return ind + rng.choice(options)


@dataclass(frozen=True)
class _Edit:
    """The intended change of region `old` (file lines from `start`) into `new`."""

    start: int
    old: tuple[str, ...]
    new: tuple[str, ...]
    origin: tuple[int | None, ...]
    """For each new line, the old line it keeps unchanged, or None (changed or added)."""
    op: str

    def kept(self) -> list[int]:
        return [o for o in self.origin if o is not None]


def _make_edit(
    src: _Source, rng: random.Random, start: int, n: int, ops: Sequence[str]
) -> _Edit | None:
    old = src.lines[start : start + n]
    op = rng.choice(ops)
    new: list[str]
    origin: list[int | None]
    if op in ("modify", "modify2"):
        want = 1 if op == "modify" else 2
        changed: dict[int, str] = {}
        for i in rng.sample(range(n), n):
            line = _mutate(old[i], rng)
            if line is not None:
                changed[i] = line
            if len(changed) == want:
                break
        if len(changed) < want:
            return None
        new = [changed.get(i, ln) for i, ln in enumerate(old)]
        origin = [None if i in changed else i for i in range(n)]
    elif op == "insert":
        places = [
            (j, line)
            for j in range(1, n)
            if (line := _inserted(src.lang, old[j - 1], old[j], rng)) is not None
        ]
        if not places:
            return None
        j, line = rng.choice(places)
        new = [*old[:j], line, *old[j:]]
        origin = [*range(j), None, *range(j, n)]
    else:  # delete a line inside the region
        spots = [j for j in range(1, n - 1) if old[j].strip()]
        if not spots:
            return None
        j = rng.choice(spots)
        new = [*old[:j], *old[j + 1 :]]
        origin = [*range(j), *range(j + 1, n)]
    return _Edit(start, tuple(old), tuple(new), tuple(origin), op)


# -- how the model writes the lines -----------------------------------------------------------

_Written = tuple[list[str], list[str], str]
"""The model's find lines, replace lines, and a note on the slip."""


def _written(
    edit: _Edit,
    context: dict[int, str] | None = None,
    every: Callable[[str], str] | None = None,
) -> tuple[list[str], list[str]]:
    """Find and replace lines: `context` rewrites kept lines (by old index) in both alike,
    `every` rewrites every line, changed and added lines included."""
    ctx = context or {}

    def each(line: str) -> str:
        return every(line) if every is not None else line

    find = [each(ctx.get(i, ln)) for i, ln in enumerate(edit.old)]
    repl = [
        each(ctx.get(o, ln)) if o is not None else each(ln)
        for ln, o in zip(edit.new, edit.origin, strict=True)
    ]
    return find, repl


def _slip_context(
    edit: _Edit,
    rng: random.Random,
    slip: Callable[[str, random.Random], str | None],
) -> dict[int, str]:
    """1-2 kept non-blank lines, slipped by `slip`."""
    want = rng.randint(1, 2)
    out: dict[int, str] = {}
    for i in rng.sample(edit.kept(), len(edit.kept())):
        if not edit.old[i].strip():
            continue
        slipped = slip(edit.old[i], rng)
        if slipped is not None and slipped != edit.old[i]:
            out[i] = slipped
        if len(out) == want:
            break
    return out


_PUNCT = frozenset("=,+-*/<>(){}[]:;|&!%?")
_SHELLISH = frozenset({"make", "sh", "docker", "yaml", "markdown", "sql"})


def _outside_strings(body: str) -> list[bool]:
    """For each character: True when it is outside a quoted string (a rough scan)."""
    out, quote, escaped = [], "", False
    for ch in body:
        out.append(not quote)
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote and ch == quote:
            quote = ""
        elif not quote and ch in "\"'`":
            quote = ch
    return out


def _single_spaces(body: str) -> list[int]:
    """Positions of spaces inside `body` with no whitespace on either side."""
    return [
        p
        for p in range(1, len(body) - 1)
        if body[p] == " " and not body[p - 1].isspace() and not body[p + 1].isspace()
    ]


def _inner_spaces(lang: str) -> Callable[[str, random.Random], str | None]:
    def slip(line: str, rng: random.Random) -> str | None:
        ind, body, trail = _split(line)
        outside = _outside_strings(body)
        options: list[tuple[str, int, int]] = []
        for p in _single_spaces(body):
            options.append(("double", p, p + 1))
            left, right = body[p - 1], body[p + 1]
            optional = (left in _PUNCT) != (right in _PUNCT)  # one side a word: never joins tokens
            if optional and outside[p] and lang not in _SHELLISH:
                options.append(("drop", p, p + 1))
        for m in re.finditer(r"(?<=\S) {2,}(?=\S)", body):
            options.append(("collapse", m.start(), m.end()))
        if not options:
            return None
        how, a, b = rng.choice(options)
        mid = {"double": "  ", "drop": "", "collapse": " "}[how]
        return ind + body[:a] + mid + body[b:] + trail

    return slip


def _tab_inside(line: str, rng: random.Random) -> str | None:
    ind, body, trail = _split(line)
    spaces = _single_spaces(body)
    if not spaces:
        return None
    p = rng.choice(spaces)
    return ind + body[:p] + "\t" + body[p + 1 :] + trail


def _has_trailing(line: str) -> bool:
    """True when the line ends in whitespace (a line of only whitespace included)."""
    return line != line.rstrip(" \t")


def _slip_trailing(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    """The file's trailing whitespace left out (first choice), or some added."""
    kept = edit.kept()
    dropped = [i for i in kept if _has_trailing(edit.old[i])]
    added = [i for i in kept if edit.old[i].strip() and not _has_trailing(edit.old[i])]
    chosen = [*rng.sample(dropped, len(dropped)), *rng.sample(added, len(added))]
    chosen = chosen[: rng.randint(1, 2)]
    if not chosen:
        return None
    ctx = {
        i: edit.old[i].rstrip(" \t")
        if i in dropped
        else edit.old[i] + rng.choice([" ", "  ", "\t", "    ", " \t"])
        for i in chosen
    }
    find, repl = _written(edit, context=ctx)
    gone = sum(1 for i in chosen if i in dropped)
    return find, repl, f"trailing whitespace left out on {gone}, added on {len(chosen) - gone}"


def _style(lines: Sequence[str], unit: str) -> str | None:
    """ "tab" or "space" when every indented line uses only that (spaces by whole levels)."""
    indents = [_indent(ln) for ln in lines if ln.strip()]
    if not any(indents):
        return None
    if all(set(i) <= {"\t"} for i in indents):
        return "tab"
    width = len(unit) if unit != "\t" else 4
    if all(set(i) <= {" "} and len(i) % width == 0 for i in indents):
        return "space"
    return None


def _slip_indent_style(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    style = _style(edit.old + edit.new, src.base.unit)
    if style is None:
        return None
    if style == "tab":
        width = rng.choice([4, 4, 2, 8])

        def convert(line: str) -> str:
            ind = _indent(line)
            return " " * (width * len(ind)) + line[len(ind) :] if line.strip() else line

        note = f"tabs written as {width} spaces"
    else:
        unit = len(src.base.unit) if src.base.unit != "\t" else 4

        def convert(line: str) -> str:
            ind = _indent(line)
            return "\t" * (len(ind) // unit) + line[len(ind) :] if line.strip() else line

        note = f"{unit}-space levels written as tabs"
    find, repl = _written(edit, every=convert)
    return find, repl, note


def _shifts(src: _Source, lines: Sequence[str]) -> list[tuple[str, str]]:
    """The constant shifts a model may write a block with: ("add" | "remove", prefix)."""
    cp = _common_indent(lines)
    unit = len(src.base.unit) if src.base.unit != "\t" else 4
    out: list[tuple[str, str]] = []
    if cp.startswith("\t"):
        tabs = len(cp) - len(cp.lstrip("\t"))
        out += [("remove", "\t" * k) for k in range(1, tabs + 1)]
    elif cp:
        spaces = len(cp) - len(cp.lstrip(" "))
        out += [("remove", " " * k) for k in sorted({2, unit, 2 * unit, spaces}) if k <= spaces]
    if cp.startswith("\t") or (not cp and src.base.unit == "\t"):
        out += [("add", "\t"), ("add", "\t\t")]
    else:
        out += [("add", " " * k) for k in sorted({2, unit, 2 * unit})]
    return out


def _shifted(shift: tuple[str, str]) -> Callable[[str], str]:
    how, p = shift

    def convert(line: str) -> str:
        if not line.strip():
            return line
        return p + line if how == "add" else line[len(p) :]

    return convert


def _slip_block_shift(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    shift = rng.choice(_shifts(src, edit.old))
    find, repl = _written(edit, every=_shifted(shift))
    sign = "+" if shift[0] == "add" else "-"
    return find, repl, f"shifted {sign}{shift[1]!r}"


def _slip_first_line(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    if not _indent(edit.old[0]):
        return None
    find, repl = _written(edit)
    find[0] = find[0].lstrip(" \t")
    if rng.random() < 0.5:
        return find, repl, "first line of find unindented, replace indented"
    repl[0] = repl[0].lstrip(" \t")
    return find, repl, "first line of find and replace unindented"


def _slip_by_context(
    name: str, slip: Callable[[str, random.Random], str | None]
) -> Callable[[_Source, _Edit, random.Random], _Written | None]:
    def apply(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
        ctx = _slip_context(edit, rng, slip)
        if not ctx:
            return None
        find, repl = _written(edit, context=ctx)
        return find, repl, f"{name} on {len(ctx)} context line(s)"

    return apply


def _slip_inner_spaces(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    return _slip_by_context("inner spaces", _inner_spaces(src.lang))(src, edit, rng)


def _slip_none(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    find, repl = _written(edit)
    return find, repl, "no slip"


def _slip_missing_blank(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    blanks = [i for i in edit.kept() if 0 < i < len(edit.old) - 1 and not edit.old[i].strip()]
    if not blanks:
        return None
    drop = rng.choice(blanks)
    find = [ln for i, ln in enumerate(edit.old) if i != drop]
    repl = [ln for ln, o in zip(edit.new, edit.origin, strict=True) if o != drop]
    return find, repl, f"blank line {drop + 1} of the region left out"


def _misremembered(src: _Source, line: str, rng: random.Random) -> str | None:
    if rng.random() < 0.7:
        return _mutate(line, rng)
    others = [ln for ln in src.lines if len(_split(ln)[1]) > 3 and _loose(ln) != _loose(line)]
    return _indent(line) + _split(rng.choice(others))[1]


def _slip_misremembered(src: _Source, edit: _Edit, rng: random.Random) -> _Written | None:
    kept = [i for i in edit.kept() if edit.old[i].strip()]
    if not kept:
        return None
    i = rng.choice(kept)
    wrong = _misremembered(src, edit.old[i], rng)
    if wrong is None:
        return None
    find, repl = _written(edit, context={i: wrong})
    return find, repl, f"region line {i + 1} misremembered"


_Slip = Callable[[_Source, _Edit, random.Random], _Written | None]

_LINE_SLIPS: dict[str, _Slip] = {
    "exact": _slip_none,
    "inner_spaces": _slip_inner_spaces,
    "tab_for_space_inside": _slip_by_context("tab for space", _tab_inside),
    "indent_tabs_vs_spaces": _slip_indent_style,
    "block_shift": _slip_block_shift,
    "first_line_unindented": _slip_first_line,
    "trailing_whitespace": _slip_trailing,
    "line_endings": _slip_none,
    "over_escaped": _slip_none,
    "missing_blank_line": _slip_missing_blank,
    "misremembered_line": _slip_misremembered,
}
"""How each kind writes the lines (line endings and escaping are applied to the text)."""


# -- cases ------------------------------------------------------------------------------------


def _good_region(src: _Source, start: int, n: int) -> bool:
    """Lines [start, start+n) start and end non-blank and are unique ignoring whitespace."""
    w = src.lines[start : start + n]
    if not w[0].strip() or not w[-1].strip():
        return False
    if _windows(src.loose, src.loose[start : start + n]) != 1:
        return False
    return _count(src.text_lf, "\n".join(w)) == 1


def _region_ok(kind: str, src: _Source, start: int, n: int) -> bool:
    w = src.lines[start : start + n]
    if kind == "first_line_unindented":
        return bool(_indent(w[0]))
    if kind == "indent_tabs_vs_spaces":
        return _style(w, src.base.unit) is not None
    if kind == "missing_blank_line":
        return any(not ln.strip() for ln in w)
    if kind == "misremembered_line":
        return sum(1 for ln in w if ln.strip()) >= 3
    if kind == "over_escaped" and n == 1:
        return any(c in w[0] for c in '"\\\t')
    return True


def _region_wanted(kind: str, number: int, lines: Sequence[str]) -> bool:
    """Every other trailing-whitespace case has whitespace to leave out in its context."""
    if kind == "trailing_whitespace" and number % 2 == 0:
        return any(_has_trailing(ln) for ln in lines)
    return True


def _texts(
    src: _Source, kind: str, find: Sequence[str], repl: Sequence[str], trailing: bool
) -> tuple[str, str]:
    if kind == "over_escaped":
        return _escape(_join(find, "\n", trailing)), _escape(_join(repl, "\n", trailing))
    eol = src.eol
    if kind == "line_endings":
        eol = "\n" if src.eol == "\r\n" else "\r\n"
    return _join(find, eol, trailing), _join(repl, eol, trailing)


def _lf(kind: str, text: str) -> str:
    """The model's text as plain LF text (escaping undone)."""
    return _unescape(text) if kind == "over_escaped" else text.replace("\r\n", "\n")


def _valid(kind: str, src: _Source, edit: _Edit, find: str, repl: str) -> bool:
    """The case is what its kind claims, and its expectation is the only right one."""
    plain, plain_repl = _lf(kind, find), _lf(kind, repl)
    if find == repl or _count(src.text_lf, plain_repl) or _count(src.text_lf, repl):
        return False  # a replacement already in the file would read as "already applied"
    keys = [_loose(ln) for ln in plain.split("\n")]
    if plain.endswith("\n"):
        keys.pop()
    if kind == "misremembered_line":
        return (
            _count(src.text_lf, plain) == 0
            and _windows(src.loose, keys) == 0
            and _windows_skipping_blanks(src.loose, keys) == 0
        )
    if kind == "over_escaped" and _count(src.text_lf, find):
        return False
    exact = _count(src.text_lf, plain)
    if kind in ("exact", "over_escaped"):
        return exact == 1
    if kind == "missing_blank_line":
        return (
            exact == 0
            and _windows(src.loose, keys) == 0
            and _windows_skipping_blanks(src.loose, keys) == 1
        )
    if exact > 1:
        return False
    if exact == 1:  # only where the region is: a first line without its indentation
        at, region = _first(src.text_lf, plain), src.offset(edit.start)
        if not region <= at <= region + len(_indent(edit.old[0])):
            return False
    return _windows(src.loose, keys) == 1


def _case(kind: str, src: _Source, rng: random.Random, number: int) -> Case | None:
    """One case of `kind` on `src`, or None when this try found none."""
    if kind == "ambiguous":
        return _ambiguous_case(src, rng, number)
    lo, hi = (3, 8) if kind in ("misremembered_line", "missing_blank_line") else (2, 8)
    if kind == "over_escaped" and rng.random() < 0.3:
        lo = hi = 1  # a single line with quotes: \" in find and replace
    n = rng.randint(lo, min(hi, len(src.lines)))
    start = rng.randrange(len(src.lines) - n + 1)
    if src.base.bom and rng.random() < 0.3:
        start = 0  # the first line follows the byte order mark, which the model never sees
    elif not src.base.final_newline and rng.random() < 0.3:
        start = len(src.lines) - n  # the last line has no line end
    if not _good_region(src, start, n) or not _region_ok(kind, src, start, n):
        return None
    if not _region_wanted(kind, number, src.lines[start : start + n]):
        return None
    ops: tuple[str, ...] = ("modify", "modify", "modify2", "insert", "delete")
    if n == 1:
        ops = ("modify",)
    edit = _make_edit(src, rng, start, n, ops)
    if edit is None:
        return None
    written = _LINE_SLIPS[kind](src, edit, rng)
    if written is None:
        return None
    find_lines, repl_lines, note = written
    last = start + n == len(src.lines)
    trailing = rng.random() < 0.7 and not (last and not src.base.final_newline)
    find, repl = _texts(src, kind, find_lines, repl_lines, trailing)
    intended_find = _join(edit.old, src.eol, trailing)
    if kind != "exact" and find == intended_find:
        return None
    if not _valid(kind, src, edit, find, repl):
        return None
    lines = list(src.lines)
    lines[start : start + n] = edit.new
    expected: str | Verdict = REFUSE if kind in REFUSE_KINDS else src.render(lines)
    return Case(
        kind=kind,
        name=f"{kind}#{number:03d} {src.path}:{start + 1}-{start + n} {edit.op}; {note}",
        path=src.path,
        original=src.text,
        find=find,
        replace=repl,
        expected=expected,
        intended_find=intended_find,
        intended_replace=_join(edit.new, src.eol, trailing),
    )


_AMBIGUOUS_SLIPS = (
    "exact",
    "inner_spaces",
    "tab_for_space_inside",
    "trailing_whitespace",
    "first_line_unindented",
    "block_shift",
    "indent_tabs_vs_spaces",
    "line_endings",
    "over_escaped",
)


def _ambiguous_case(src: _Source, rng: random.Random, number: int) -> Case | None:
    """A find meant for one of two (or more) windows that are the same up to indentation."""
    if not src.duplicates:
        return None
    longer = [g for g in src.duplicates if g[0][1] > 1]
    group = rng.choice(longer if longer and rng.random() < 0.75 else src.duplicates)
    start, n = rng.choice(group)
    old = src.lines[start : start + n]
    twins = [s for s, _ in group if s != start and src.lines[s : s + n] == old]
    edit = _make_edit(src, rng, start, n, ("modify",) if n == 1 else ("modify", "insert"))
    if edit is None:
        return None
    if twins:
        slip = rng.choice(_AMBIGUOUS_SLIPS)
        written = _LINE_SLIPS[slip](src, edit, rng)
    else:  # only indented differently: a shift to an indentation none of them has
        slip = "block_shift"
        others = {_common_indent(src.lines[s : s + n]) for s, _ in group}
        fresh = [
            sh
            for sh in _shifts(src, old)
            if _common_indent([_shifted(sh)(x) for x in old]) not in others
        ]
        if not fresh:
            return None
        sh = rng.choice(fresh)
        find_l, repl_l = _written(edit, every=_shifted(sh))
        written = (find_l, repl_l, f"shifted {sh[0]} {sh[1]!r}")
    if written is None:
        return None
    find_lines, repl_lines, note = written
    trailing = rng.random() < 0.5 and start + n < len(src.lines)
    find, repl = _texts(src, slip, find_lines, repl_lines, trailing)
    plain = _lf(slip, find)
    keys = [_loose(ln) for ln in plain.split("\n")]
    if plain.endswith("\n"):
        keys.pop()
    if (
        find == repl
        or _count(src.text_lf, plain) == 1
        or (slip == "over_escaped" and _count(src.text_lf, find))
        or _windows(src.loose, keys) < 2
        or _count(src.text_lf, _lf(slip, repl))
    ):
        return None
    places = ", ".join(str(s + 1) for s, _ in group)
    return Case(
        kind="ambiguous",
        name=f"ambiguous#{number:03d} {src.path}:{start + 1}-{start + n} (same at lines "
        f"{places}) {edit.op}; {slip}" + ("" if note == "no slip" else f": {note}"),
        path=src.path,
        original=src.text,
        find=find,
        replace=repl,
        expected=REFUSE,
        intended_find=_join(edit.old, src.eol, trailing),
        intended_replace=_join(edit.new, src.eol, trailing),
    )


def _order(kind: str, srcs: list[_Source]) -> list[_Source]:
    """The files a kind cycles through: line endings alternate CRLF and LF files."""
    if kind != "line_endings":
        k = KINDS.index(kind) * 3 % len(srcs)
        return srcs[k:] + srcs[:k]
    crlf = [s for s in srcs if s.base.crlf]
    lf = [s for s in srcs if not s.base.crlf]
    out: list[_Source] = []
    for i, s in enumerate(lf):
        out += [crlf[i % len(crlf)], s]
    return out


TRIES_PER_FILE = 40


def build_corpus(seed: str = SEED, per_kind: int = PER_KIND) -> list[Case]:
    """`per_kind` cases of every kind in `KINDS`, the same for the same seed."""
    srcs = sources()
    cases: list[Case] = []
    for kind in KINDS:
        rng = random.Random(f"{seed}/{kind}")
        order = _order(kind, srcs)
        seen: set[tuple[str, str, str]] = set()
        made, turn = 0, 0
        while made < per_kind:
            if turn > per_kind * 20:
                raise RuntimeError(f"{kind}: only {made} cases could be made")
            src = order[turn % len(order)]
            turn += 1
            for _ in range(TRIES_PER_FILE):
                case = _case(kind, src, rng, made + 1)
                if case is not None and (case.path, case.find, case.replace) not in seen:
                    seen.add((case.path, case.find, case.replace))
                    cases.append(case)
                    made += 1
                    break
    return cases
