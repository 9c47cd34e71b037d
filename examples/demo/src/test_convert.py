from convert import celsius_to_fahrenheit, fahrenheit_to_celsius


def test_boiling_point() -> None:
    assert celsius_to_fahrenheit(100) == 212


def test_round_trip() -> None:
    assert fahrenheit_to_celsius(celsius_to_fahrenheit(37)) == 37
