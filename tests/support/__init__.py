"""Helpers shared by the tests: every test module imports helpers from here, never from another test module.

tests/test_layout.py checks that rule; fixtures stay in the conftest.py files.
"""
