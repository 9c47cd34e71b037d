"""The fallback layers of the edit engine, in order: what each forgives, where each stops."""

from __future__ import annotations

from karyi.workspace.diffs import apply_hunks
from tests.support.edit_calls import edit, refused

# -- fallback layers, in order -------------------------------------------------------------


def test_fallback_line_endings_lf_find_in_crlf_file_keeps_crlf() -> None:
    out = edit("a\r\nb\r\nc\r\n", ("a\nb", "A\nB\nB2"))
    assert out.pairs[0].strategy == "line_endings"
    assert out.text == "A\r\nB\r\nB2\r\nc\r\n"


def test_fallback_line_endings_crlf_find_in_lf_file() -> None:
    out = edit("a\nb\n", ("a\r\nb", "x\r\ny"))
    assert out.pairs[0].strategy == "line_endings"
    assert out.text == "x\ny\n"


def test_crlf_find_in_crlf_file_is_exact_and_round_trips() -> None:
    original = "one\r\ntwo\r\nthree\r\n"
    out = edit(original, ("two\r\n", "2\r\n"))
    assert out.pairs[0].strategy == "exact"
    assert out.text == "one\r\n2\r\nthree\r\n"
    assert apply_hunks(original, out.diff.hunks, ["h1"]) == out.text
    assert out.diff.edits[0].new_text == "2"


def test_fallback_trailing_whitespace() -> None:
    out = edit("def f():  \n    pass\t\n", ("def f():\n    pass", "def g():\n    pass"))
    assert out.pairs[0].strategy == "trailing_whitespace"
    assert out.text == "def g():\n    pass\n"


def test_fallback_trimmed_lines_keeps_the_first_lines_indentation() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    out = edit(text, ("\tdef f(self):\n        return 1", "\tdef g(self):\n        return 2"))
    assert out.pairs[0].strategy == "trimmed_lines"
    assert out.text == "class A:\n    def g(self):\n        return 2\n"


def test_fallback_indentation_shift_reindents_the_replacement() -> None:
    text = "class A:\n    def f(self):\n        if x:\n            return 1\n"
    find = "def f(self):\n    if x:\n        return 1"
    repl = "def f(self):\n    if y:\n        return 2"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == "class A:\n    def f(self):\n        if y:\n            return 2\n"


def test_fallback_indentation_shift_removing_indentation() -> None:
    text = "def f():\n    return 1\n"
    out = edit(text, ("    def f():\n        return 1", "    def g():\n        return 2"))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == "def g():\n    return 2\n"


def test_fallback_unescaped_text() -> None:
    text = 'print("a\\n")\nx = "q"\n'
    out = edit(text, ('print(\\"a\\\\n\\")', 'print(\\"b\\\\n\\")'))
    assert out.pairs[0].strategy == "unescaped"
    assert out.text == 'print("b\\n")\nx = "q"\n'


def test_fallback_over_escaped_newlines() -> None:
    out = edit("a = 1\nb = 2\n", ("a = 1\\nb = 2", "a = 3\\nb = 4"))
    assert out.pairs[0].strategy == "unescaped"
    assert out.text == "a = 3\nb = 4\n"


def test_fallback_tokens_ignores_spacing_between_tokens() -> None:
    out = edit("result = compute( a,b )\n", ("result = compute(a, b)", "result = go(a, b)"))
    assert out.pairs[0].strategy == "tokens"
    assert out.text == "result = go(a, b)\n"


def test_tokens_never_join_two_words() -> None:
    err = refused("returnx\n", ("return x", "y"))
    assert err.kind == "no_match"


def test_fallback_similar_for_a_nearly_identical_block() -> None:
    text = (
        "def load(path):\n"
        "    with open(path) as fh:\n"
        "        data = fh.read()\n"
        "    return parse(data)\n"
        "\nother()\n"
    )
    find = (
        "def load(path):\n"
        "    with open(path) as fh:\n"
        "        data = fh.read()  \n"
        "    return parse(data))\n"
    )
    repl = "def load(path):\n    return parse(open(path).read())\n"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "similar"
    assert out.pairs[0].similarity >= 0.92
    assert out.text == "def load(path):\n    return parse(open(path).read())\n\nother()\n"


def test_similarity_never_applies_to_short_finds() -> None:
    err = refused("value_1 = compute(item_1)\n", ("value_2 = compute(item_1)", "x"))
    assert err.kind == "no_match"


def test_similar_blocks_twice_are_ambiguous() -> None:
    block = "def a():\n    one = 1\n    two = 2\n    three = 3\n"
    text = block + "\n" + block.replace("a()", "b()") + "\n"
    err = refused(text, ("def c():\n    one = 1\n    two = 2\n    three = 3\n", "x"))
    assert err.kind == "ambiguous" and err.strategy == "similar"
    assert err.lines == (1, 6)


def test_fallback_ambiguity_is_refused_too() -> None:
    err = refused("x = 1  \nx = 1\t\n", ("x = 1\n", "y\n"))
    assert err.kind == "ambiguous" and err.strategy == "trailing_whitespace"
