"""Test support shared by every layer: the fake model server and its fixture."""
