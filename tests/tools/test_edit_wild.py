"""Editing files as they are in the wild, through the `<edit>` tool and the disk: tabs,
mixed indentation, no final newline, a BOM, CRLF, CJK and emoji and combining marks,
100 KB lines, Latin-1 bytes, YAML and Makefiles. Each lands exactly or is refused with
the file byte-identical."""

from __future__ import annotations

from pathlib import Path

from karyi.core.errors import ErrorCode
from karyi.tools.context import ToolContext
from tests.support.tool_calls import call, code


async def edit(ctx: ToolContext, src: str, find: str, replace: str) -> tuple[bool, str]:
    """One pair through `karyi.edit`: success, and what the model reads."""
    params = {"files": [{"src": src, "pairs": [{"find": find, "replace": replace}]}]}
    result = await call("karyi.edit", params, ctx)
    return result.success, result.llm_content


async def test_tabs_kept_where_the_model_wrote_spaces(ctx: ToolContext, ws_root: Path) -> None:
    go = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    (ws_root / "main.go").write_text(go)
    ok, _ = await edit(ctx, "main.go", "\tif ok {\n    run()\n", "\tif ok {\n    run(ctx)\n")
    assert ok
    assert (ws_root / "main.go").read_text() == go.replace("run()", "run(ctx)")


async def test_mixed_indentation_keeps_each_lines_own(ctx: ToolContext, ws_root: Path) -> None:
    text = "def f():\n\tif a:\n\t    b()\n\t    c()\n"
    (ws_root / "mixed.py").write_text(text)
    ok, _ = await edit(ctx, "mixed.py", "if a:\n    b()\n    c()", "if a:\n    b()\n    d()")
    assert ok
    assert (ws_root / "mixed.py").read_text() == "def f():\n\tif a:\n\t    b()\n\t    d()\n"


async def test_no_final_newline_stays_without_one(ctx: ToolContext, ws_root: Path) -> None:
    (ws_root / "n.txt").write_text("one\ntwo  \nthree")
    ok, _ = await edit(ctx, "n.txt", "two\nthree", "two\n3")
    assert ok
    assert (ws_root / "n.txt").read_bytes() == b"one\ntwo  \n3"


async def test_a_bom_and_crlf_survive_a_fuzzy_edit(ctx: ToolContext, ws_root: Path) -> None:
    raw = "\ufeffa = 1\r\nb  = 2\r\nc = 3\r\n".encode()
    (ws_root / "bom.py").write_bytes(raw)
    ok, _ = await edit(ctx, "bom.py", "b = 2\nc = 3\n", "b = 2\nc = 4\n")
    assert ok
    assert (ws_root / "bom.py").read_bytes() == "\ufeffa = 1\r\nb  = 2\r\nc = 4\r\n".encode()


async def test_cjk_emoji_and_combining_marks(ctx: ToolContext, ws_root: Path) -> None:
    text = 'title = "café 東京 👩\u200d💻"\nname = "e\u0301cole"\n'
    (ws_root / "u.py").write_text(text)
    ok, content = await edit(ctx, "u.py", 'name = "e\u0301cole"', 'name = "école 🎓"')
    assert ok and '+name = "école 🎓"' in content
    assert (ws_root / "u.py").read_text() == 'title = "café 東京 👩\u200d💻"\nname = "école 🎓"\n'


async def test_a_line_of_100_kb(ctx: ToolContext, ws_root: Path) -> None:
    long = "x = [" + ", ".join(["1"] * 33_000) + "]"
    (ws_root / "big.py").write_text(f"a = 0\n{long}\nb = 1\n")
    ok, _ = await edit(ctx, "big.py", "b = 1", "b = 2")
    assert ok
    assert (ws_root / "big.py").read_text() == f"a = 0\n{long}\nb = 2\n"


async def test_latin1_bytes_are_refused_never_mangled(ctx: ToolContext, ws_root: Path) -> None:
    raw = "caf\xe9 = 1\nother = 2\n".encode("latin-1")
    (ws_root / "legacy.py").write_bytes(raw)
    params = {"files": [{"src": "legacy.py", "pairs": [{"find": "other = 2", "replace": "o = 3"}]}]}
    result = await call("karyi.edit", params, ctx)
    assert not result.success and code(result) == ErrorCode.INVALID_TOOL_INPUT
    assert "not valid UTF-8" in result.llm_content
    assert (ws_root / "legacy.py").read_bytes() == raw


async def test_yaml_indentation_is_meaning(ctx: ToolContext, ws_root: Path) -> None:
    text = "services:\n  web:\n    image: nginx\n    ports:\n      - 80\n"
    (ws_root / "c.yaml").write_text(text)
    ok, _ = await edit(
        ctx, "c.yaml", "ports:\n  - 80\n", "ports:\n  - 80\n  - 443\n"
    )  # the model copied the block two levels shallower
    assert ok
    assert (ws_root / "c.yaml").read_text() == text + "      - 443\n"


async def test_a_makefile_recipe_keeps_its_tab(ctx: ToolContext, ws_root: Path) -> None:
    text = "all: build\n\nbuild:\n\tcc -o app main.c\n"
    (ws_root / "Makefile").write_text(text)
    ok, _ = await edit(
        ctx, "Makefile", "build:\n    cc -o app main.c\n", "build:\n    cc -O2 -o app main.c\n"
    )
    assert ok
    assert (ws_root / "Makefile").read_text() == "all: build\n\nbuild:\n\tcc -O2 -o app main.c\n"


async def test_an_invented_line_is_refused_with_the_file_intact(
    ctx: ToolContext, ws_root: Path
) -> None:
    text = "if ready:\n    start()\nelse:\n    wait()\n    retry()\n"
    (ws_root / "w.py").write_text(text)
    ok, content = await edit(
        ctx,
        "w.py",
        "    start()\nfrobnicate_the_widget(42)\n    wait()\n    retry()\n",
        "    start()\nfrobnicate_the_widget(42)\n    wait()\n    give_up()\n",
    )
    assert not ok
    assert "line 3: the file has 'else:', your find text has 'frobnicate_the_widget(42)'" in content
    assert (ws_root / "w.py").read_text() == text


async def test_a_pair_made_ambiguous_by_an_earlier_one_writes_nothing(
    ctx: ToolContext, ws_root: Path
) -> None:
    (ws_root / "s.py").write_text("a = 1\nb = 2\n")
    pairs = [{"find": "b = 2", "replace": "a = 1"}, {"find": "a = 1", "replace": "c = 3"}]
    result = await call("karyi.edit", {"files": [{"src": "s.py", "pairs": pairs}]}, ctx)
    assert not result.success and "pair 2: the find text matches 2 places" in result.llm_content
    assert (ws_root / "s.py").read_text() == "a = 1\nb = 2\n"
