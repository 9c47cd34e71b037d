"""Tests for convert.py; run them with `python3 src/test_convert.py`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from convert import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_boiling_point() -> None:
    assert celsius_to_fahrenheit(100) == 212, celsius_to_fahrenheit(100)


def test_round_trip() -> None:
    assert round(fahrenheit_to_celsius(celsius_to_fahrenheit(37)), 9) == 37


if __name__ == "__main__":
    tests = [test_boiling_point, test_round_trip]
    failed = 0
    for test in tests:
        try:
            test()
        except AssertionError as exc:
            failed += 1
            print(f"FAILED {test.__name__}: got {exc}")
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
