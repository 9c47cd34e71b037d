"""ripgrep search: results in path order whether ripgrep ran in parallel or was capped."""

from __future__ import annotations

from pathlib import Path

from karyi.workspace.ripgrep import grep


def _tree(root: Path) -> list[tuple[str, int]]:
    """Files whose names sort differently as strings and as paths; the expected order."""
    names = ["a-b/x.txt", "a/x.txt", "a.txt", "b/c/d.txt", "B.txt", "z.txt"]
    for i, rel in enumerate(names * 5):
        path = root / f"{rel[:-4]}{i // len(names)}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("hit one\nmiss\nhit two\n")
    files = sorted(
        (str(p.relative_to(root)) for p in root.rglob("*.txt")), key=lambda r: r.split("/")
    )
    return [(f, line) for f in files for line in (1, 3)]


async def test_matches_come_in_path_order_then_line_order(tmp_path: Path) -> None:
    expected = _tree(tmp_path)
    result = await grep("hit", tmp_path)
    assert [(m.path, m.line) for m in result.matches] == expected and not result.capped


async def test_past_the_cap_the_first_matches_in_path_order_are_kept(tmp_path: Path) -> None:
    expected = _tree(tmp_path)
    result = await grep("hit", tmp_path, max_matches=7)
    assert result.capped and [(m.path, m.line) for m in result.matches] == expected[:7]
