"""A generated corpus of elided edits (issue "[lazy-edits]").

Models abbreviate: a find with its middle left out (`...`, `# ... existing code ...`), a
whole-file write with markers where unchanged code should stay. The contract is the edit
engine's: an edit lands exactly as meant or not at all. Each case is one intended edit of
a real file (this repository's own Python and TypeScript, and the Python, JavaScript,
TypeScript, Go and Rust base files of tests/support/edit_corpus_files.py), written the way
a model abbreviates it (`KINDS`, described in `ELISIONS`). `expected` is the original with
exactly the intended change, or `REFUSE` when no edit may land: the anchors fit more than
one place (counted here by brute force, whitespace-exact), an anchor line the file does
not have, or the file itself has an elision-looking line where the marker stands.

`mode` says how the case is applied: `pair` (one find/replace pair) or `write` (the
content of a whole-file write over `original`, None for a new file).

Deterministic: one `random.Random` per kind, seeded by name; only repository files read.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.support.edit_corpus import REFUSE, Verdict, _indent, _inserted, _mutate

__all__ = ["KINDS", "REFUSE", "ElisionCase", "build_corpus", "placements"]
from tests.support.edit_corpus_files import BASE_FILES

FROZEN = Path(__file__).resolve().parent / "elision_files"
REAL_FILES = (
    ("server/karyi/workspace/merge.py", "python"),
    ("server/karyi/workspace/positions.py", "python"),
    ("server/karyi/workspace/readlog.py", "python"),
    ("client-vscode/src/config.ts", "ts"),
    ("client-vscode/src/terminal.ts", "ts"),
    ("client-vscode/src/diagnostics.ts", "ts"),
)
"""Files of this repository the corpus also edits: copies frozen in tests/support/elision_files
(`<name>.txt`), so that changing the live file never changes the corpus."""
LANGS = frozenset({"python", "js", "ts", "go", "rust"})

ELISIONS: dict[str, str] = {
    "pair_keep": "find: 1-3 lines, a marker, 1-3 lines; replace: the same with a line of "
    "the anchors changed and the marker repeated (the elided lines stay)",
    "pair_drop": "find as in pair_keep; replace: the anchors with a new line where the "
    "marker was (the elided lines are replaced)",
    "pair_two_markers": "find: anchor, marker, 1-2 lines, marker, anchor; a middle line changed",
    "pair_trailing_whitespace": "pair_keep with trailing spaces on an unchanged anchor line",
    "pair_dedented": "pair_keep with find and replace dedented by the region's indentation",
    "pair_short_anchors": "one-line anchors, which may fit several places (then REFUSE)",
    "pair_misremembered_anchor": "an unchanged anchor line that is not in the file: REFUSE",
    "pair_marker_in_file": "the file has an elision-looking line in the elided span: REFUSE",
    "write_one_gap": "the whole file with a span of 3+ lines replaced by a marker, a line "
    "changed outside it",
    "write_two_gaps": "two spans replaced by markers, a line changed between or outside them",
    "write_leading_trailing": "the file's beginning or end replaced by a marker",
    "write_blank_margins": "one span replaced by a marker between blank lines",
    "write_ambiguous": "a changed duplicated block between two markers: REFUSE",
    "write_marker_in_file": "the file has an elision-looking line in the kept span: REFUSE",
    "write_no_elision": "the whole file with a line changed, no marker: written as given",
    "new_file": "a new file whose content has a marker line: written as given",
}
KINDS: tuple[str, ...] = tuple(ELISIONS)
SEED = "lazy-edits-corpus-1"
PER_KIND = 40
TRIES = 60

MARKERS = {
    "python": ("...", "…", "# ...", "# ... existing code ...", "# … rest unchanged …"),
    "c-like": (
        "...",
        "…",
        "// ...",
        "// ... existing code ...",
        "// ... rest of the function unchanged ...",
        "/* ... */",
    ),
}
"""Marker lines a model writes, per comment style."""
FILE_MARKERS = {"python": "...", "c-like": "// ... existing code ..."}
"""An elision-looking line that is also valid code (a stub body, a comment)."""


@dataclass(frozen=True)
class ElisionCase:
    """One elided edit: the file, what the model wrote, and what must happen."""

    kind: str
    name: str
    mode: str  # "pair" or "write"
    path: str
    original: str | None
    find: str
    replace: str
    """The replacement (pair) or the whole content written (write)."""
    expected: str | Verdict


@dataclass(frozen=True)
class _File:
    path: str
    lang: str
    lines: tuple[str, ...]
    eol: str = "\n"
    final_newline: bool = True

    def render(self, lines: Sequence[str]) -> str:
        return self.eol.join(lines) + (self.eol if self.final_newline else "")

    @property
    def style(self) -> str:
        return "python" if self.lang == "python" else "c-like"


def _frozen(path: str) -> Path:
    return FROZEN / f"{Path(path).name}.txt"


def files() -> list[_File]:
    """The real files and the base files in the corpus's languages."""
    out = [
        _File(path, lang, tuple(_frozen(path).read_text("utf-8").split("\n")[:-1]))
        for path, lang in REAL_FILES
    ]
    for b in BASE_FILES:
        if b.lang in LANGS and not b.bom:
            eol = "\r\n" if b.crlf else "\n"
            out.append(_File(b.path, b.lang, tuple(b.lines()), eol, b.final_newline))
    return out


def _lf(lines: Sequence[str]) -> str:
    return "\n".join(lines) + "\n"


def _looks_elided(line: str) -> bool:
    return "..." in line or "…" in line


def placements(lines: Sequence[str], blocks: Sequence[Sequence[str]], limit: int = 2) -> int:
    """How many ways (up to `limit`) the blocks fit the lines in order, whole lines, exactly,
    without overlapping (gaps of any length, none included)."""
    ways: dict[int, int] = {0: 1}  # end of the last placed block -> ways
    for block in blocks:
        k = len(block)
        nxt: dict[int, int] = {}
        for end, n in ways.items():
            for s in range(end, len(lines) - k + 1):
                if tuple(lines[s : s + k]) == tuple(block):
                    nxt[s + k] = min(limit, nxt.get(s + k, 0) + n)
        ways = nxt
    return min(limit, sum(ways.values()))


def _change(f: _File, lines: list[str], choices: Sequence[int], rng: random.Random) -> int | None:
    """Mutate one of the lines at `choices` in place; its index, or None."""
    for i in rng.sample(list(choices), len(choices)):
        new = _mutate(lines[i], rng) if lines[i].strip() else None
        if new is not None and new.strip() not in {ln.strip() for ln in f.lines}:
            lines[i] = new
            return i
    return None


def _marker(f: _File, indent: str, rng: random.Random) -> str:
    return (indent if rng.random() < 0.7 else "") + rng.choice(MARKERS[f.style])


# -- find/replace pairs ------------------------------------------------------------------------


def _pair(kind: str, f: _File, rng: random.Random) -> tuple[str, str, str, str | Verdict] | None:
    n = len(f.lines)
    k1, k2 = (1, 1) if kind == "pair_short_anchors" else (rng.randint(1, 3), rng.randint(1, 3))
    gap = rng.randint(2, 10)
    s = rng.randrange(0, max(1, n - k1 - gap - k2))
    e = s + k1 + gap + k2
    if e > n:
        return None
    region = list(f.lines[s:e])
    head, mid, tail = region[:k1], region[k1 : k1 + gap], region[k1 + gap :]
    if not (head[-1].strip() and tail[0].strip() and head[0].strip() and tail[-1].strip()):
        return None
    if any(_looks_elided(ln) for ln in region):
        return None
    marker = _marker(f, _indent(mid[0]) or _indent(head[-1]), rng)
    blocks: list[Sequence[str]] = [head, tail]
    original = list(f.lines)
    if kind == "pair_two_markers":
        j = rng.randint(1, gap - 2) if gap > 3 else 0
        if not j or not mid[j].strip():
            return None
        middle = [mid[j]]
        find = [*head, marker, *middle, marker, *tail]
        new_mid = middle[:]
        if _change(f, new_mid, [0], rng) is None:
            return None
        repl = [*head, marker, *new_mid, marker, *tail]
        blocks = [head, middle, tail]
        new = [*head, *mid[:j], *new_mid, *mid[j + 1 :], *tail]
    else:
        new_head, new_tail = head[:], tail[:]
        both = new_head + new_tail
        changed = _change(f, both, range(len(both)), rng)
        if changed is None:
            return None
        new_head, new_tail = both[:k1], both[k1:]
        find = [*head, marker, *tail]
        kept = [rng.choice([marker, _marker(f, _indent(marker), rng)])]
        if kind == "pair_drop":
            added = _inserted(f.lang, head[-1], tail[0], rng) or _indent(head[-1]) + "pass"
            if f.lang != "python" and added.strip() == "pass":
                return None
            kept, mid = [added], [added]
        repl = [*new_head, *kept, *new_tail]
        new = [*new_head, *mid, *new_tail]
        if kind == "pair_trailing_whitespace":
            spots = [i for i in range(len(find)) if find[i] in head + tail and find[i] == repl[i]]
            if not spots or len(find) != len(repl):
                return None
            i = rng.choice(spots)
            find[i] += "  "
            repl[i] += "  "
        elif kind == "pair_misremembered_anchor":
            spots = [i for i in range(len(find)) if find[i] in head + tail and find[i] == repl[i]]
            if not spots or len(find) != len(repl):
                return None
            i = rng.choice(spots)
            wrong = _mutate(find[i], rng)
            if wrong is None or wrong.strip() in {ln.strip() for ln in f.lines}:
                return None
            find[i] = repl[i] = wrong
        elif kind == "pair_marker_in_file":
            at = s + k1 + rng.randint(0, gap - 1)
            original.insert(at, (_indent(f.lines[at]) or "    ") + FILE_MARKERS[f.style])
        elif kind == "pair_dedented":
            common = min((_indent(ln) for ln in region if ln.strip()), key=len)
            if not common or any(ln.strip() and not ln.startswith(common) for ln in repl):
                return None
            find = [ln[len(common) :] if ln.startswith(common) else ln for ln in find]
            repl = [ln[len(common) :] for ln in repl]
    expected: str | Verdict = f.render([*f.lines[:s], *new, *f.lines[e:]])
    refused = kind in ("pair_misremembered_anchor", "pair_marker_in_file")
    if refused or placements(f.lines, blocks) != 1:
        expected = REFUSE
    if kind == "pair_short_anchors" and expected is not REFUSE and rng.random() < 0.5:
        return None  # keep both outcomes in this kind
    return f.render(original), _lf(find), _lf(repl), expected


# -- whole-file writes ---------------------------------------------------------------------------


def _spans(n: int, count: int, rng: random.Random, edges: bool) -> list[tuple[int, int]] | None:
    """`count` separate spans of 3+ lines, at least one line apart (at the file's edges when
    `edges`)."""
    if edges:
        j = rng.randint(3, max(3, n // 2))
        return [(0, j)] if rng.random() < 0.5 else [(n - j, n)]
    cuts = sorted(rng.sample(range(1, n - 1), 2 * count))
    spans = list(zip(cuts[::2], cuts[1::2], strict=True))
    if any(b - a < 3 for a, b in spans) or any(
        s2[0] - s1[1] < 1 for s1, s2 in itertools.pairwise(spans)
    ):
        return None
    return spans


def _write(kind: str, f: _File, rng: random.Random) -> tuple[str | None, str, str | Verdict] | None:
    n = len(f.lines)
    lines = list(f.lines)
    if kind in ("write_no_elision", "new_file"):
        if _change(f, lines, range(n), rng) is None:
            return None
        if kind == "write_no_elision":
            return f.render(f.lines), f.render(lines), f.render(lines)
        at = rng.randrange(1, n - 1)
        lines[at : at + rng.randint(2, 6)] = [_marker(f, _indent(lines[at]), rng)]
        return None, _lf(lines), _lf(lines)
    if kind == "write_ambiguous":
        return _ambiguous_write(f, rng)
    count = 2 if kind == "write_two_gaps" else 1
    spans = _spans(n, count, rng, edges=kind == "write_leading_trailing")
    if spans is None or any(_looks_elided(ln) for a, b in spans for ln in f.lines[a:b]):
        return None
    inside = {i for a, b in spans for i in range(a, b)}
    if _change(f, lines, [i for i in range(n) if i not in inside], rng) is None:
        return None
    expected: str | Verdict = f.render(lines)
    original = list(f.lines)
    content: list[str] = []
    pos = 0
    for a, b in spans:
        content += lines[pos:a]
        marker = [_marker(f, _indent(f.lines[a]), rng)]
        if kind == "write_blank_margins":
            if b - a < 5 or f.lines[a].strip() or f.lines[b - 1].strip():
                return None
            marker = ["", *marker, ""]
        content += marker
        pos = b
    content += lines[pos:]
    if kind == "write_marker_in_file":
        a, b = spans[0]
        at = rng.randint(a, b - 1)
        original.insert(at, (_indent(f.lines[at]) or "    ") + FILE_MARKERS[f.style])
        expected = REFUSE
    return f.render(original), _lf(content), expected


def _ambiguous_write(f: _File, rng: random.Random) -> tuple[str, str, Verdict] | None:
    """Two equal 3-line blocks; the content changes the middle line of one of them between
    markers, so it fits either."""
    n = len(f.lines)
    where: dict[tuple[str, ...], list[int]] = {}
    for i in range(1, n - 3):
        w = tuple(f.lines[i : i + 3])
        if all(ln.strip() for ln in w) and len(w[1].strip()) >= 4:
            where.setdefault(w, []).append(i)
    twice = [(w, at) for w, at in where.items() if len(at) >= 2 and at[1] - at[0] >= 3]
    if not twice:
        return None
    block, _ = rng.choice(twice)
    changed = _mutate(block[1], rng)
    if changed is None:
        return None
    m = _marker(f, _indent(block[0]), rng)
    content = [*f.lines[:1], m, block[0], changed, block[2], m, *f.lines[n - 1 :]]
    return f.render(f.lines), _lf(content), REFUSE


def _case(kind: str, f: _File, rng: random.Random, number: int) -> ElisionCase | None:
    name = f"{kind}-{number:03d} {f.path}"
    if kind.startswith("pair"):
        made = _pair(kind, f, rng)
        if made is None:
            return None
        original, find, repl, expected = made
        return ElisionCase(kind, name, "pair", f.path, original, find, repl, expected)
    written = _write(kind, f, rng)
    if written is None:
        return None
    return ElisionCase(kind, name, "write", f.path, written[0], "", written[1], written[2])


def build_corpus(seed: str = SEED, per_kind: int = PER_KIND) -> list[ElisionCase]:
    """Up to `per_kind` cases of every kind, the same for the same seed and files."""
    fs = files()
    cases: list[ElisionCase] = []
    for kind in KINDS:
        rng = random.Random(f"{seed}/{kind}")
        seen: set[tuple[str, str, str]] = set()
        for turn in range(per_kind * TRIES):
            if len(seen) >= per_kind:
                break
            case = _case(kind, fs[turn % len(fs)], rng, len(seen) + 1)
            if case is not None and (case.path, case.find, case.replace) not in seen:
                seen.add((case.path, case.find, case.replace))
                cases.append(case)
    return cases
