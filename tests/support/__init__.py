"""Shared test set-up: bases, scripted routers and settings helpers (not tests)."""
