"""Elided edits (docs/tools.md#elided-edits): finds and whole-file writes with `...`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karyi.workspace.edits import EditError, Pair, apply_edits
from karyi.workspace.elided_write import merge_write
from karyi.workspace.elision import comment_forms, is_elision

ABC = "def a():\n    return 1\n\n\ndef b():\n    x = 2  \n\treturn x\n\n\ndef c():\n    return 3\n"


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("...", "m.py"),
        ("    …", "m.py"),
        ("# ... existing code ...", "m.py"),
        ("    # ... rest of the function unchanged ...", "m.py"),
        ("// ... existing code ...", "app.ts"),
        ("  /* ... */", "app.js"),
        ("// ... rest of handleClick unchanged ...", "app.tsx"),
        ("<!-- ... -->", "index.html"),
        ("-- ... other columns ...", "schema.sql"),
        ("# ... existing code ...", "notes.unknown"),
    ],
)
def test_elision_forms_are_recognised(line: str, path: str) -> None:
    assert is_elision(line, comment_forms(path))


@pytest.mark.parametrize(
    ("line", "path"),
    [
        ("x = [...]", "m.py"),
        ("return f(...args);", "app.js"),
        ("...rest,", "app.ts"),
        ("# see the docs...", "m.py"),
        ("// ... and then we compute the totals twice here", "app.ts"),
        ("// ... existing code ...", "m.py"),  # not a comment in Python
        ("print('...')", "m.py"),
    ],
)
def test_code_and_prose_are_not_elisions(line: str, path: str) -> None:
    assert not is_elision(line, comment_forms(path))


def test_an_elided_find_keeps_the_elided_lines_byte_for_byte() -> None:
    find = "def a():\n    return 1\n# ... existing code ...\ndef c():\n    return 3\n"
    repl = "def a():\n    return 10\n# ... existing code ...\ndef c():\n    return 30\n"
    out = apply_edits(ABC, [Pair(find, repl)], path="m.py")
    assert out.text == ABC.replace("return 1\n", "return 10\n").replace("return 3", "return 30")
    report = out.pairs[0]
    assert report.strategy == "elided"
    assert "the elision stood for lines 3-9, kept as they are" in report.describe()
    assert out.diff.added == 2 and out.diff.removed == 2
    assert "+    return 30" in out.diff.unified and "-def b" not in out.diff.unified


def test_a_replacement_without_the_elision_replaces_the_span() -> None:
    find = "def a():\n    ...\n    return 1\n"
    repl = "def a():\n    return 1\n"
    text = "def a():\n    x = 1\n    y = 2\n    return 1\n"
    out = apply_edits(text, [Pair(find, repl)], path="m.py")
    assert out.text == "def a():\n    return 1\n"
    assert "replaced (your replacement has no elision there)" in out.pairs[0].describe()


def test_anchors_with_whitespace_slips_are_forgiven_and_new_lines_indented() -> None:
    text = "class K:\n    def f(self):\n        a = 1\n        b = 2\n        return a + b\n"
    find = "def f(self):\n    ...\n    return a + b\n"
    repl = "def f(self):\n    ...\n    log(a)\n    return a + b\n"
    out = apply_edits(text, [Pair(find, repl)], path="k.py")
    assert out.text == (
        "class K:\n    def f(self):\n        a = 1\n        b = 2\n"
        "        log(a)\n        return a + b\n"
    )


def test_an_anchor_that_fits_two_places_is_refused_with_both() -> None:
    text = "x = 1\nprint(x)\ny = 2\nprint(x)\nend()\n"
    with pytest.raises(EditError) as err:
        apply_edits(text, [Pair("x = 1\n...\nprint(x)\n", "x = 5\n...\nprint(x)\n")], path="m.py")
    assert err.value.kind == "ambiguous"
    assert "lines 2, 4" in err.value.message


def test_a_missing_anchor_is_refused_with_the_closest_region() -> None:
    with pytest.raises(EditError) as err:
        apply_edits(ABC, [Pair("def a():\n...\ndef zz():\n", "def a():\n...\n")], path="m.py")
    assert err.value.kind == "no_match"
    assert "'def zz():'" in err.value.message and "closest region" in err.value.message


def test_a_marker_in_a_span_the_file_also_contains_is_refused() -> None:
    text = "class P:\n    def f(self):\n        ...\n    def g(self):\n        return 1\n"
    find = "class P:\n    # ... existing code ...\n    def g(self):\n        return 1\n"
    repl = "class P:\n    # ... existing code ...\n    def g(self):\n        return 2\n"
    with pytest.raises(EditError) as err:
        apply_edits(text, [Pair(find, repl)], path="p.py")
    assert err.value.kind == "elision"
    assert "looks like an elision itself" in err.value.message


def test_finds_bounded_by_an_elision_or_with_a_stray_one_in_the_replacement_are_refused() -> None:
    with pytest.raises(EditError, match="starts or ends with an elision"):
        apply_edits(ABC, [Pair("...\ndef c():\n", "...\ndef c(x):\n")], path="m.py")
    with pytest.raises(EditError, match="an elision, but the find text has none"):
        apply_edits(ABC, [Pair("def c():\n", "# ... existing code ...\ndef c():\n")], path="m.py")
    with pytest.raises(EditError, match="stands for no elision of the find"):
        apply_edits(ABC, [Pair("def a():\n...\ndef c():\n", "...\ndef a():\n...\n")], path="m.py")


def test_a_literal_ellipsis_the_file_has_still_matches_exactly() -> None:
    text = "class P(Protocol):\n    def f(self) -> int:\n        ...\n"
    find = "    def f(self) -> int:\n        ...\n"
    out = apply_edits(text, [Pair(find, find.replace("int", "str"))], path="p.py")
    assert out.text == text.replace("int", "str")
    assert out.pairs[0].strategy == "exact"


# -- whole-file writes -----------------------------------------------------------------------


def test_the_issue_write_merges_to_a_b_c_with_c_changed() -> None:
    content = "def a():\n    return 1\n# ... existing code ...\ndef c():\n    return 30\n"
    merged = merge_write(ABC, content, path="m.py")
    assert merged.text == ABC.replace("return 3", "return 30")
    assert "# ... existing code ..." not in merged.text
    assert "lines 3-9" in merged.note


def test_a_write_without_elision_is_written_as_given() -> None:
    assert merge_write(ABC, "x = 1\n", path="m.py").text == "x = 1\n"
    assert merge_write(ABC, "x = 1\n", path="m.py").note == ""


def test_a_new_file_keeps_its_text_and_says_it_looked_elided() -> None:
    content = "def a():\n    ...\n"
    merged = merge_write(None, content, path="new.py")
    assert merged.text == content
    assert "line 2 ('...') looked like an elision" in merged.note


def test_a_write_with_a_leading_elision_keeps_the_files_beginning_in_crlf() -> None:
    crlf = ABC.replace("\n", "\r\n")
    merged = merge_write(crlf, "# ...\ndef c():\n    return 4\n", path="m.py")
    assert merged.text == crlf.replace("return 3", "return 4")


def test_an_uncertain_write_merge_is_refused() -> None:
    text = "if x:\n    go()\nif x:\n    go()\n"
    with pytest.raises(EditError, match="more than one place"):
        merge_write(text, "...\nif x:\n    go()\n    stop()\n", path="m.py")
    with pytest.raises(EditError, match=r"is not in m\.py"):
        merge_write(ABC, "def a():\n    return 9\n...\n", path="m.py")


def test_a_stub_body_under_a_new_def_is_code_and_an_existing_ones_is_elided() -> None:
    content = "def a():\n    ...\n\n\ndef c():\n    return 3\n\n\ndef new():\n    ...\n"
    merged = merge_write(ABC, content, path="m.py")
    assert merged.text == ABC + "\n\ndef new():\n    ...\n"


def test_a_write_whose_span_holds_a_marker_like_line_is_refused() -> None:
    text = "def a():\n    pass\n\n\n# ... existing code ...\ndef c():\n    pass\n"
    with pytest.raises(EditError, match="looks like an elision itself"):
        merge_write(text, "def a():\n    pass\n...\ndef c():\n    return 1\n", path="m.py")


def test_a_blank_line_ending_the_find_belongs_to_its_last_anchor() -> None:
    find = "def a():\n# ... existing code ...\ndef b():\n    return 2\n\n"
    repl = "def a():\n# ... existing code ...\ndef b():\n    return 20\n\n"
    out = apply_edits(ABC.replace("    x = 2  \n\treturn x", "    return 2"), [Pair(find, repl)])
    assert out.text == ABC.replace("    x = 2  \n\treturn x", "    return 20")


def test_a_marker_in_another_languages_comment_form_is_refused_not_written() -> None:
    with pytest.raises(EditError, match=r"not a comment in x\.js's language"):
        merge_write(
            "function a() {}\nfunction b() {}\n",
            "function a() {}\n# ... existing code ...\n",
            path="x.js",
        )
    with pytest.raises(EditError, match="an elision, but the find text has none"):
        apply_edits(
            "a();\nb();\n", [Pair("a();\n", "a();\n# ... rest unchanged ...\n")], path="x.js"
        )


PIECES = st.sampled_from(
    ["a", "b", "x = 1", "", "  y", "\tz", "...", "# ...", "}", "return a", "c\r"]
)
TEXTS = st.lists(PIECES, max_size=12).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(TEXTS, TEXTS, TEXTS, st.booleans())
def test_an_elided_edit_lands_or_is_refused_never_crashes(
    text: str, find: str, repl: str, write: bool
) -> None:
    try:
        if write:
            merge_write(text + "\n", find + "\n...\n" + repl, path="m.py")
        else:
            apply_edits(text + "\n", [Pair(find + "\n...\n" + repl, repl)], path="m.py")
    except EditError:
        pass


def test_a_bare_ellipsis_under_a_changed_signature_is_never_written_as_a_stub() -> None:
    # The corpus found this: a `...` below an existing function whose signature the model
    # changed, with more of the body after it, once wrote the file as given and so
    # deleted the code between. It is an elision: merged against the file, or refused.
    text = (
        "def f(x: int) -> int:\n    y = x + 1\n    z = y * 2\n"
        "    def inner() -> int:\n        return z\n    return inner()\n"
    )
    content = "def f(x: float) -> int:\n    ...\n    def inner() -> int:\n        return z\n"
    try:
        merged = merge_write(text, content, path="m.py")
    except EditError:
        return  # refused: the file is untouched
    assert "    z = y * 2\n" in merged.text and "    ...\n" not in merged.text


def test_a_stub_is_a_new_blocks_whole_body() -> None:
    content = "def a():\n    return 1\n\n\ndef brand_new():\n    ...\n"
    merged = merge_write(ABC, content, path="m.py")
    assert merged.text == content  # no elision: the stub is code
