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
    assert out.text == "def g():\n    pass\t\n"  # the line the model kept is the file's


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


def test_a_misremembered_line_is_refused_and_shown_never_written() -> None:
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
    err = refused(text, (find, repl))
    assert err.kind == "no_match"
    assert "The closest region is lines 1-4" in err.message
    assert (
        "Lines that differ beyond whitespace:\n"
        "line 4: the file has 'return parse(data)', your find text has 'return parse(data))'\n"
    ) in err.message


def test_an_invented_line_in_the_find_never_replaces_the_files_line() -> None:
    text = "if ready:\n    start()\nelse:\n    wait()\n    retry()\n"
    find = "if ready:\n    start()\nfrobnicate_the_widget(42)\n    wait()\n    retry()\n"
    repl = "if ready:\n    start()\nfrobnicate_the_widget(42)\n    wait()\n    give_up()\n"
    err = refused(text, (find, repl))
    assert err.kind == "no_match"
    assert "line 3: the file has 'else:', your find text has 'frobnicate_the_widget(42)'" in (
        err.message
    )


def test_similarity_never_applies_to_short_finds() -> None:
    err = refused("value_1 = compute(item_1)\n", ("value_2 = compute(item_1)", "x"))
    assert err.kind == "no_match"


def test_similar_blocks_are_never_written() -> None:
    block = "def a():\n    one = 1\n    two = 2\n    three = 3\n"
    text = block + "\n" + block.replace("a()", "b()") + "\n"
    err = refused(text, ("def c():\n    one = 1\n    two = 2\n    three = 3\n", "x"))
    assert err.kind == "no_match"


def test_fallback_ambiguity_is_refused_too() -> None:
    err = refused("x = 1  \nx = 1\t\n", ("x = 1\n", "y\n"))
    assert err.kind == "ambiguous" and err.strategy == "trailing_whitespace"


# -- a fuzzy match writes only what the model changed ----------------------------------------


def test_spacing_slips_on_kept_lines_never_reach_the_file() -> None:
    text = (
        "class InteractiveInterpreter:\n"
        '    greeting = "hello  world"\n'
        "    def runsource(self, source):\n"
        "        return self.compile(source)\n"
    )
    find = (
        "class  InteractiveInterpreter:\n"
        '    greeting = "hello world"\n'
        "    def runsource(self, source):\n"
        "        return self.compile(source)\n"
    )
    repl = find.replace("return self.compile(source)", "return self.compile(source, 'exec')")
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "tokens"
    assert out.text == text.replace(
        "return self.compile(source)", "return self.compile(source, 'exec')"
    )


def test_tabs_for_spaces_keep_the_files_spaces_on_every_line() -> None:
    text = "def f(x):\n    if x:\n        return 1\n    return 2\n"
    find = "def f(x):\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    repl = "def f(x):\n\tif x:\n\t\tlog(x)\n\t\treturn 1\n\treturn 2\n"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == "def f(x):\n    if x:\n        log(x)\n        return 1\n    return 2\n"


def test_spaces_for_tabs_keep_a_makefiles_tabs() -> None:
    text = "build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n"
    find = "test:\n    go test ./...\n"
    repl = "test:\n    go vet ./...\n    go test ./...\n"
    out = edit(text, (find, repl))
    assert out.text == "build:\n\tgo build ./...\n\ntest:\n\tgo vet ./...\n\tgo test ./...\n"


def test_a_shifted_yaml_block_gets_the_files_indentation() -> None:
    text = "jobs:\n  test:\n    steps:\n      - run: make\n      - run: make test\n"
    find = "steps:\n  - run: make\n  - run: make test\n"
    repl = "steps:\n  - run: make\n  - run: make lint\n  - run: make test\n"
    out = edit(text, (find, repl))
    assert out.pairs[0].strategy == "indentation"
    assert out.text == (
        "jobs:\n  test:\n    steps:\n      - run: make\n      - run: make lint\n"
        "      - run: make test\n"
    )


def test_a_new_line_whose_indentation_cannot_be_mapped_is_refused() -> None:
    text = "a:\n   b: 1\n   c: 2\n"
    find = "a:\n     b: 1\n      c: 2\n"  # indented unevenly: no map explains it
    err = refused(text, (find, "a:\n     b: 1\n        d: 4\n      c: 2\n"))
    assert err.kind == "unsafe"
    assert "indented unlike any line of the file there" in err.message
    assert "nothing was written" in err.message


def test_a_find_broken_into_other_lines_is_refused() -> None:
    text = "total = compute(a,\n                b)\nprint(total)\n"
    err = refused(text, ("total = compute(a, b)\nprint(total)\n", "total = 0\nprint(total)\n"))
    assert err.kind == "unsafe"
    assert "copy its line breaks exactly" in err.message
