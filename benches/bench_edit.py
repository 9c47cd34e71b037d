"""Edit engine: 100 find/replace pairs on a 5 MB file (issue [workspace], target < 100 ms).

The engine checks that every find matches exactly one place, applies the pairs in
order, and builds the diff, the LSP text edits and the hunks.
Baselines in the same run: a chain of `str.replace(find, repl, 1)` (no uniqueness
check, no diff: the least any edit must do) and the same chain with the uniqueness
check a correct edit needs (`str.count` before each replace).

Two mixes of pairs: "typical" (3 in 4 finds span several lines, as models are told to
write them, found through an index of lines) and "single-line" (every find inside one
line: no line to index, so all finds are located in one Aho-Corasick pass; a scan per
pair, as the checked chain does, costs a full read of the file each).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from karyi.workspace.edits import Pair, apply_edits

SIZE = 5_000_000
PAIRS = 100
RUNS = 5
SMOKE: dict[str, object] = {"SIZE": 50_000, "PAIRS": 10, "RUNS": 1}
"""Tiny sizes for `benches/run.py --smoke` (part of `make test`)."""


def make_file() -> tuple[str, list[str]]:
    blocks: list[str] = []
    total = i = 0
    while total < SIZE:
        block = (
            f"    def method_{i}(self, arg_{i}):\n"
            f"        value = compute(arg_{i}, factor={i % 97})\n"
            f"        return value + {i}\n\n"
        )
        blocks.append(block)
        total += len(block)
        i += 1
    return "".join(blocks), blocks


def make_pairs(blocks: list[str], multi_share: float, rng: random.Random) -> list[Pair]:
    chosen = sorted(rng.sample(range(len(blocks)), PAIRS))
    pairs = []
    for k, j in enumerate(chosen):
        if k % 100 < multi_share * 100:
            find = blocks[j][:-1]  # the block's three lines
            pairs.append(Pair(find, find.replace("compute(", "compute_v2(")))
        else:
            find = f"value = compute(arg_{j}, factor={j % 97})"
            pairs.append(Pair(find, f"value = compute_v2(arg_{j})"))
    return pairs


def best(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def replace_chain(text: str, pairs: list[Pair]) -> str:
    for p in pairs:
        text = text.replace(p.find, p.replace, 1)
    return text


def checked_chain(text: str, pairs: list[Pair]) -> str:
    for p in pairs:
        if text.count(p.find) != 1:
            raise ValueError(p.find)
        text = text.replace(p.find, p.replace, 1)
    return text


def main(report: Callable[[str], None] = print) -> dict[str, float]:
    """Run the benchmark; returns engine milliseconds per mix."""
    text, blocks = make_file()
    rng = random.Random(7)
    report(
        f"{PAIRS} pairs on a {len(text) / 1e6:.1f} MB file ({len(blocks) * 4} lines), "
        f"best of {RUNS}"
    )
    report(
        f"{'mix':<13}{'engine':>10}{'replace chain':>16}{'ratio':>8}"
        f"{'checked chain':>16}{'ratio':>8}"
    )
    out: dict[str, float] = {}
    for name, share in (("typical", 0.75), ("single-line", 0.0)):
        pairs = make_pairs(blocks, share, rng)
        result = apply_edits(text, pairs, path="big.py")
        assert result.text == replace_chain(text, pairs), "engine and baseline disagree"
        assert all(p.changed for p in result.pairs) and result.diff.hunks
        engine = best(lambda pairs=pairs: apply_edits(text, pairs, path="big.py"))  # type: ignore[misc]
        chain = best(lambda pairs=pairs: replace_chain(text, pairs))  # type: ignore[misc]
        checked = best(lambda pairs=pairs: checked_chain(text, pairs))  # type: ignore[misc]
        out[name] = engine * 1000
        report(
            f"{name:<13}{engine * 1000:>8.1f}ms{chain * 1000:>14.1f}ms{engine / chain:>7.2f}x"
            f"{checked * 1000:>14.1f}ms{engine / checked:>7.2f}x"
        )
    report(
        "target: < 100 ms for either mix (the engine also builds the diff, text edits and hunks)"
    )
    return out


if __name__ == "__main__":
    main()
