"""
A conversation's pinned prompt: how its last request began, so the next one starts exactly the
same way and the LLM server's prompt cache (which keeps a prefix) skips it (`prompts.pin`,
`prompts.PinnedPrompt`). Kept on the reactor by `service.start_turn`. Plain Python.
"""

from __future__ import annotations

from collections import OrderedDict

from omniira_evennia.conversation.prompts import PinnedPrompt

# How each live conversation's last request began (conversation id -> the settings it was
# made under, PinnedPrompt), so the next one starts the same way and the LLM server's prompt
# cache skips it. In process only: after a restart a conversation's next line renders its
# prompt afresh, as it does after anything shown in one is changed or erased (`unpin`).
_pinned: OrderedDict[str, tuple[object, PinnedPrompt]] = OrderedDict()
PINNED_CONVERSATIONS = 256


def pinned_for(conversation_id: str, conf) -> PinnedPrompt | None:
    made_under, pinned = _pinned.get(conversation_id, (None, None))
    return pinned if made_under is conf else None  # settings changed: render afresh


def keep_pinned(conversation_id: str, conf, pinned: PinnedPrompt | None) -> None:
    if pinned is None:
        return
    _pinned[conversation_id] = (conf, pinned)
    _pinned.move_to_end(conversation_id)
    while len(_pinned) > PINNED_CONVERSATIONS:
        _pinned.popitem(last=False)


def unpin() -> None:
    """
    Forget every pinned prompt: something a prompt may show was changed or erased (a memory
    superseded, marked suspect or forgotten, an opinion changed, a player's data erased), and
    an ongoing conversation must not keep showing it. New rows need not: they arrive with the
    line that retrieves them. Called on the models' post_save (updates) and post_delete
    (apps.py).
    """
    _pinned.clear()
