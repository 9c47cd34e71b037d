"""$KARYI{NAME}: found anywhere, replaced on a copy, unknown names named precisely."""

from __future__ import annotations

import pytest

from karyi.secrets.substitute import UnknownVariable, placeholders, substitute

VALUES = {"A": "alpha", "B": "beta"}


def test_nested_parameters_are_substituted_on_a_copy() -> None:
    params = {"command": "echo $KARYI{A}", "files": [{"src": "$KARYI{B}/x"}], "n": 3}
    out = substitute(params, VALUES.get)
    assert out == {"command": "echo alpha", "files": [{"src": "beta/x"}], "n": 3}
    assert params["command"] == "echo $KARYI{A}"


def test_unknown_names_are_listed() -> None:
    assert placeholders({"x": ["$KARYI{A} $KARYI{Z}", "$KARYI{Y}"]}) == {"A", "Y", "Z"}
    with pytest.raises(UnknownVariable) as err:
        substitute({"x": "$KARYI{A} $KARYI{Z} $KARYI{Y}"}, VALUES.get)
    assert str(err.value) == (
        "unknown secure variables $KARYI{Y}, $KARYI{Z}: nothing was executed. Ask the user "
        'for it with the get_value tool (key="Y"), or the user can store it with '
        "`karyi var set Y`"
    )


def test_text_that_only_looks_similar_is_left_alone() -> None:
    assert substitute({"x": "$KARYI{} ${A} $KARYI{1A}"}, VALUES.get) == {
        "x": "$KARYI{} ${A} $KARYI{1A}"
    }
