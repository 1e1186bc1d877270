"""Ask before deleting: the one confirm-then-act flow of `@memory clear`, `erase`, `know forget`."""

from __future__ import annotations

from collections.abc import Callable, Generator


def confirmed(question: str, act: Callable[[], str], refused: str) -> Generator[str, str, str]:
    """Ask `question` (ending "[y/N]"); on "y" or "yes" run `act` and return what it says,
    else return `refused`. Use as `text = yield from confirmed(...)`."""
    answer = yield question
    if answer.strip().lower() not in ("y", "yes"):
        return refused
    return act()
