"""Evennia markup and control characters: links, MXP, colour codes, escapes, invisibles."""

from __future__ import annotations

import re

# ---------------------------------------------------------------- control characters

# Escape sequences a terminal acts on, removed whole: CSI (`ESC [ params final`, and its 8-bit
# form U+009B: colours, cursor moves, MXP's `ESC [ 4 z`), OSC (`ESC ] ... BEL or ST`: window
# titles, terminal hyperlinks) and two-character escapes (`ESC c`, `ESC (B`). Each part stops at
# the next ESC, so a run of bare ESCs costs one step each.
_ESCAPE = (
    r"(?:\x1b\[|\x9b)[0-?]*+[ -/]*+[@-~]?"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\x9d]*+(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[ -/]*+[0-~]?"
)
# Characters that render as nothing but change what is shown: bidi embeddings, overrides,
# isolates and marks (text shown in another order than it is stored), zero-width spaces and
# joiners, word joiners and invisible operators, the byte-order mark, soft hyphens.
_INVISIBLE = "\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufeff"
_LINE_BREAK = "\t\n\v\f\r\x1c-\x1e\x85\u2028\u2029"
_PLAYER_CONTROL = re.compile(rf"{_ESCAPE}|[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f{_INVISIBLE}]")
_LINE_BREAKS = re.compile(rf"[{_LINE_BREAK}]++")


def strip_controls(text: str) -> str:
    """
    `text` as a player's one line: escape sequences, C0 and C1 control characters, bidi
    controls and zero-width characters removed, and each run of tabs and line breaks made one
    space (a player's line cannot start a new one under it). Linear and idempotent.
    """
    if not text:
        return text or ""
    return _LINE_BREAKS.sub(" ", _PLAYER_CONTROL.sub("", text))


# ---------------------------------------------------------------- Evennia markup

# Clickable links: a command (`|lc<command>|lt<text>|le`, MXP SEND in telnet, a clickable
# command in the web client) and a URL (`|lu<url>|lt<text>|le`). Only the visible text stays.
_LINK_OPEN = re.compile(r"\|l[cu]")
# A link's text may hold another link; each pass unwraps one level. Deeper nesting is only
# cosmetic: the token pass removes the markers left over, and with them every pipe.
_LINK_PASSES = 3
# Evennia's default colour and style codes: |r |R |h |n |u |i |s |* |^ ..., |!R, |[R |[r,
# xterm256 |123 |[123, greyscale |=a |[=a, truecolor |#ff0000 |[#f00.
_COLOUR = (
    r"\|(?:\[?#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})|\[?[0-5]{3}|\[?=[a-z]|![RGYBMCWX]|"
    r"\[[RGYBMCWXrgybmcwx]|[nuUiIsS*^rgybmcwxRGYBMCWXhH])"
)
# Layout codes (a new line, a tab, an indent, a space): a line break could forge a system
# message under the NPC's line, so they become one space in every mode.
_LAYOUT = r"\|[/\-_>]"
# Left-over link markers (`|lc`, `|lu`, `|lt`, `|le` of a broken or nested link) go whole.
_TOKEN = re.compile(rf"(?P<layout>{_LAYOUT})|(?P<colour>{_COLOUR})|\|l[cute]|\|")
# Raw escape sequences (ANSI colours, MXP's ESC[4z mode switches) and other control characters
# (C0 but tab and newline, DEL, C1).
_CONTROL = re.compile(rf"{_ESCAPE}|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# MXP elements a client would act on (SEND, A and their kin), with or without the escape; a tag
# ends at the first `>` and cannot span another `<`.
_MXP_NAME = r"(?:send|a|expire|version|support|image|sound|music|frame|dest)\b"
_MXP_TAG = re.compile(rf"</?{_MXP_NAME}[^<>]*+>", re.IGNORECASE)
# What removing text can join into a tag's opening (`<se<a>nd>`, `<|send>`, an unclosed
# `<a href`): the run of `<` and `/` before an MXP name, taken as one run so none is left.
_MXP_OPENING = re.compile(rf"(?<![</])/*+<[</]*+(?={_MXP_NAME})", re.IGNORECASE)
MARKUP_MODES = ("strip", "colour")


def _unlink(text: str) -> str:
    """
    One pass of `\\|l[cu](.*?)\\|lt(.*?)\\|le` replaced by its text, made linear: each marker is
    found by `str.find` from the last one, and a missing marker ends the pass (no later link
    could complete either), where the regex would rescan to the end from every `|lc`.
    """
    out, position = [], 0
    while opening := _LINK_OPEN.search(text, position):
        middle = text.find("|lt", opening.end())
        end = text.find("|le", middle + 3) if middle >= 0 else -1
        if end < 0:
            break
        out += [text[position : opening.start()], text[middle + 3 : end]]
        position = end + 3
    out.append(text[position:])
    return "".join(out)


_LINK_MARKER = re.compile(r"\|l[cute]")


def unwrap_links(text: str) -> str:
    """
    `text` with Evennia's clickable links reduced to their visible text and any marker left
    over removed; every other code (colours, layout) stays. Linear: what a player types is put
    through it before Evennia's own input handling, whose link patterns rescan a line from
    every "|lc" (seconds for a 6,000-character line: omniira_evennia/inputfuncs.py).
    """
    if not text or "|l" not in text:
        return text or ""
    for _ in range(_LINK_PASSES):
        unlinked = _unlink(text)
        if unlinked == text:
            break
        text = unlinked
    return _LINK_MARKER.sub("", text)


def neutralize_markup(text: str, mode: str = "strip") -> str:
    """
    LLM-written `text` made safe to say, store and show in Evennia: links and MXP reduced to
    their visible text, control characters removed, layout codes made a space, colour codes
    removed (`mode="strip"`, the default) or kept (`mode="colour"`), and every other `|`
    dropped. Evennia turns `||` into `|` before it looks for links, so an escaped pipe could
    rebuild `|lc...|le`: no pipe survives but a kept colour code's. Linear and idempotent.
    """
    if not text:
        return text or ""
    text = _MXP_TAG.sub("", _CONTROL.sub("", text))
    for _ in range(_LINK_PASSES):
        if "|l" not in text:
            break
        text = _unlink(text)
    keep_colour = mode == "colour"

    def token(match: re.Match) -> str:
        if match.group("layout"):
            return " "
        if match.group("colour") and keep_colour:
            return match.group(0)
        return ""

    # Last, as removing pipes can join `<` to an MXP name; removing `<` joins no pipe.
    return _MXP_OPENING.sub("", _TOKEN.sub(token, text))
