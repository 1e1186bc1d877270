"""
Player commands for talking to NPCs that remember.

Add `OmniiraCmdSet` to your `CharacterCmdSet` (see the contrib README). It provides `talk` and a
`say` that also notices when a line opens with an NPC's name ("Maren, ...").
"""

from evennia.commands.cmdset import CmdSet
from evennia.commands.default.general import CmdSay as DefaultCmdSay
from evennia.commands.default.muxcommand import MuxCommand

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversation
from omniira_evennia.conversation.addressing import addressed_name
from omniira_evennia.memory.safety import neutralize_markup
from omniira_evennia.models import Memory


def player_speech(text) -> str:
    """A player's spoken line as the room gets it: colour codes kept, links, MXP and control
    characters removed (memory/safety.neutralize_markup, linear)."""
    return neutralize_markup(str(text or ""), "colour")


def _memory_npcs_here(caller):
    location = caller.location
    if not location:
        return []
    return [obj for obj in location.contents if getattr(obj, "is_omniira_npc", False)]


class CmdTalk(MuxCommand):
    """
    talk to someone who will remember it

    Usage:
      talk <npc> = <message>

    Examples:
      talk Maren = What do you pour here?
      talk maren = My name is Ada and I'm looking for my brother.

    Speaks to a character in the room. Everyone present hears you and the
    answer. The character may remember what you tell them.
    """

    key = "talk"
    aliases = ["talk to"]
    locks = "cmd:all()"
    help_category = "Communication"

    def func(self) -> None:
        caller = self.caller
        if not self.rhs or not self.lhs:
            caller.msg("Usage: talk <npc> = <message>   (e.g. talk Maren = Good evening!)")
            return
        target = caller.search(self.lhs.strip(), location=caller.location, quiet=True)
        if not target:
            caller.msg(f"You don't see anyone called '{self.lhs.strip()}' here.")
            return
        if len(target) > 1:
            caller.msg(f"More than one '{self.lhs.strip()}' here; be more specific.")
            return
        target = target[0]
        if not getattr(target, "is_omniira_npc", False):
            caller.msg(f"{target.get_display_name(caller)} doesn't seem interested in talking.")
            return
        speech = caller.at_pre_say(player_speech(self.rhs).strip())
        if not speech:
            return
        # Placeholders, not f-strings: at_say formats these, and speech may contain braces.
        caller.at_say(
            speech,
            msg_self='You say to {target}, "|n{speech}|n"',
            msg_location='{object} says to {target}, "|n{speech}|n"',
            mapping={"target": target.key},
        )
        conversation.turn_focus_to(caller, target)  # a plain `say` goes on to them (CmdSay)
        target.at_talked_to(speech, caller)


def _others_here(caller, npcs) -> list[str]:
    """Names of the other characters present (a line may address them instead)."""
    location = caller.location
    if not location:
        return []
    return [
        obj.key
        for obj in location.contents
        if obj is not caller and obj not in npcs and (obj.has_account or obj.db_account_id)
    ]


class CmdSay(DefaultCmdSay):
    """
    speak as your character

    Usage:
      say <message>

    Examples:
      say Hello everyone.
      say Maren, what do you pour here?
      say How long have you kept this place, Maren?
      say The walk up from the docks was long today.

    Talk to those in your current location. Name someone as people do
    ("Maren, ...", "..., Maren?", "Tell me, Maren, ...") to address them;
    they may answer and remember. Once you are talking with someone, your
    next lines are for them without their name, until you address someone
    else, leave, say goodbye, or stay quiet long enough for the talk to end.
    A line that names nobody while you talk with nobody is for the room.
    """

    def func(self) -> None:
        # A player's links and MXP never reach the room (a clickable command said to others),
        # and cannot stall it: Evennia's own link patterns rescan a line from every "|lc"
        # (seconds for a 6,000-character line). Colour codes stay.
        self.args = player_speech(self.args)
        super().func()
        speech = (self.args or "").strip()
        if not speech:
            return
        caller = self.caller
        npcs = _memory_npcs_here(caller)
        names = {}
        for npc in npcs:
            for name in [npc.key, *npc.aliases.all()]:
                names.setdefault(name.lower(), npc)
        name = addressed_name(speech, list(names) + _others_here(caller, npcs))
        if name and name.lower() in names:
            target = names[name.lower()]
        elif name:
            conversation.end_focus(caller)  # they turned to someone else
            return
        else:
            target = conversation.focus_on(caller, npcs)
            if target is None:
                _hint_how_to_talk(caller, npcs)
        if target is not None:
            conversation.turn_focus_to(caller, target)
            target.at_talked_to(speech, caller)


# The NPCs a player has been told how to talk with (a line without a name, while talking with
# nobody, is for the room; a returning player would otherwise wait for an answer that never
# comes: telnet trial, 2026-12-05). Once per NPC until the server reloads.
_HINTED = "omniira_talk_hinted"


def _hint_how_to_talk(caller, npcs) -> None:
    hinted = getattr(caller.ndb, _HINTED, None) or set()
    new = [npc for npc in npcs if npc.id not in hinted]
    if not new:
        return
    setattr(caller.ndb, _HINTED, hinted | {npc.id for npc in new})
    name = new[0].key
    caller.msg(
        f"(You are not talking with anyone. To talk with {name}, say the name: "
        f'"say {name}, ..." or "talk {name} = ...".)'
    )


class OmniiraCmdSet(CmdSet):
    """Talking to NPCs that remember: `talk` and a name-aware `say`."""

    key = "omniira"

    def at_cmdset_creation(self) -> None:
        self.add(CmdTalk())
        self.add(CmdSay())


class CmdRecall(MuxCommand):
    """
    ask what someone remembers about you

    Usage:
      recall <npc>

    Examples:
      recall Maren

    Shows what the NPC remembers about you, if the game allows it.
    """

    key = "recall"
    locks = "cmd:all()"
    help_category = "Communication"

    def func(self) -> None:
        caller = self.caller
        if not get_settings().PLAYER_RECALL:
            caller.msg("You can't see into other people's heads.")
            return
        if not self.args.strip():
            caller.msg("Usage: recall <npc>")
            return
        npc = caller.search(self.args.strip(), location=caller.location, quiet=True)
        if not npc or len(npc) != 1 or not getattr(npc[0], "is_omniira_npc", False):
            caller.msg(f"There is no one called '{self.args.strip()}' here who remembers.")
            return
        npc = npc[0]
        rows = (
            Memory.objects.filter(npc=npc, subject=caller, suspect=False)
            .select_related("provenance")
            .order_by("learned_at")
        )
        if not rows:
            if conversation.still_thinking_over(npc, caller):
                # Said right after a goodbye, "nothing" reads as a broken promise.
                caller.msg(
                    f"{npc.key} is still turning over what you talked about. Ask again soon."
                )
                return
            caller.msg(f"{npc.key} doesn't seem to remember anything about you.")
            return
        caller.msg(
            f"{npc.key} remembers about you:\n"
            + "\n".join(
                f"  - {'(heard from ' + m.provenance.db_key + ') ' if m.provenance_id else ''}"
                f"{m.value}"
                for m in rows
            )
        )
