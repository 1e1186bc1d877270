"""Fakes and tools for testing the contrib and games that use it (see fakes.py)."""
