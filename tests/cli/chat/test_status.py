"""The chat's status line names the model shortly: a replayed script by its file."""

from __future__ import annotations

from karyi.cli.chat.status import StatusFacts, short_model


def test_a_script_model_is_named_by_its_file() -> None:
    assert short_model("script:/work/examples/demo/fix.yaml (replay)") == "script:fix.yaml"
    assert short_model("openai:gpt-4.1") == "openai:gpt-4.1"
    facts = StatusFacts(model="script:/tmp/x/turns.json (replay)", context_window=1000)
    assert facts.text().plain.startswith("script:turns.json · ctx 0/1.0k")
