"""Tests that use the game's database: Django and Evennia set up (tests/support/django_state)."""

from tests.support.django_state import (  # noqa: F401  (fixtures, registered by name)
    _default_homes,
    _evennia_init,
    _fresh_django_state,
)
