"""Text from outside: lone surrogates found with where they are, or replaced."""

from __future__ import annotations

from karyi.core.text import invalid_text_at, valid_text, valid_tree


def test_a_lone_surrogate_is_named_with_its_field_and_position() -> None:
    assert invalid_text_at({"a": ["ok", "x\ud800"]}, "params") == (
        "params.a[1]: invalid Unicode (a lone surrogate U+D800 at character 1)"
    )
    assert invalid_text_at({"k\udfff": 1}, "params") == (
        "params: the key 'k\ufffd': invalid Unicode (a lone surrogate U+DFFF at character 1)"
    )
    assert invalid_text_at({"a": ["ok", "😀 é"], "n": 1}, "params") is None


def test_valid_text_replaces_each_lone_surrogate_and_keeps_the_rest() -> None:
    assert valid_text("a\ud800b😀") == "a\ufffdb😀"
    assert valid_tree({"k\ud800": ["\udfff", 2]}) == {"k\ufffd": ["\ufffd", 2]}
    plain = "nothing to do"
    assert valid_text(plain) is plain
