"""Helpers the tests import: paths to fixtures, the real `kroute` run as a process, waiting for
what happens asynchronously, golden files and hand-built shadow records. Fixtures stay in
tests/conftest.py."""
