"""A knowledge secret typed by a builder is masked in Evennia's audit log (issue #28, point 5)."""

from unittest import mock

import pytest

from omniira_evennia.conf import AUDIT_MASKS

auditing = pytest.importorskip("evennia.contrib.utils.auditing.server")

SECRET = "Maren hides brandy under the cellar floor"
TYPED = (
    "@memory/secret/if=trust>=0.8/topics=cellar,brandy know add Maren = "
    f"{SECRET}. => Nothing down there but barrels, {{speaker}}."
)


def masked(line: str) -> str:
    session = object.__new__(auditing.AuditedServerSession)  # mask() reads no session state
    with mock.patch.object(auditing, "AUDIT_MASKS", auditing.AUDIT_MASKS + AUDIT_MASKS):
        return session.mask(line)


def test_a_secret_added_by_a_builder_is_masked():
    shown = masked(TYPED)
    assert SECRET not in shown and "cellar floor" not in shown
    assert shown.startswith("@memory/secret/if=trust>=0.8/topics=cellar,brandy know add Maren =")


def test_other_memory_commands_are_logged_as_typed():
    plain = "@memory/category=trade/key=cider know add Maren = A mug of cider costs two copper."
    assert masked(plain) == plain
    assert masked("@memory inspect Maren") == "@memory inspect Maren"
