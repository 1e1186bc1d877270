"""
A small deterministic LLM for the testbed: an OpenAI-compatible chat-completions server on
loopback that answers every feature of the contrib with plausible, seeded output.

It is reached over real HTTP through the contrib's `LLMClient`, so the whole pipeline runs as
with a real model: tags are parsed from the replies, JSON is validated, usage is recorded.
What it says is keyed off the request (its feature and its prompt text) and a seed:

- a player turn: a short in-character line; on about `tag_rate` of turns a REMEMBER tag about
  the player (sometimes an OPINION too);
- an NPC-to-NPC turn: "Have you heard about <subject>? <fact>", the next item of the "What you
  know about other people" block of its prompt (so it passes on what it knows, in order);
- gossip: every "Have you heard about ...?" line of the transcript, as an item;
- extraction: one fact from the player's lines, on about `extract_rate` of conversations;
- reflection: one tentative belief about the target; diary: one entry naming the day's events.

Token counts are estimated as characters / 4, like a server's usage block.

`HashingEmbedder` (bag of words hashed into 384 dimensions) goes with it: deterministic, no
model to load, and the same words give the same direction, which is all gossip's chain
matching needs.
"""

from __future__ import annotations

import hashlib
import json
import random
import re

OPENERS = [
    "Well met, {speaker}.",
    "Ah, {speaker}, good to see you.",
    "Mind the step, {speaker}.",
    "You again, {speaker}? Sit, sit.",
]
ANSWERS = [
    "I will keep that in mind.",
    "That is news to me.",
    "Hm, the town will talk about that.",
    "Is that so? Tell me more another time.",
    "I have heard stranger things this week.",
]
FEELINGS = ["joy", "trust", "surprise", "neutral", "sorrow", "fear"]
NEWS_HEADER = "What you know about other people (share it if it fits the talk):"
from omniira_evennia.testing.fakes import HashingEmbedder, ScriptedLLM  # noqa: F401

HEARD = re.compile(r"Have you heard about (.+?)\? (.+)")
STOPWORDS = set(
    "the a an and or to of in on at is was i you me my your it that this with for".split()
)


def _slug(text: str, words: int = 3) -> str:
    found = [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS]
    return "_".join(found[:words]) or "remark"


def _news(system: str) -> list[tuple[str, str]]:
    """(subject, fact) pairs from the prompt's block about other people, in order."""
    if NEWS_HEADER not in system:
        return []
    items = []
    for line in system.split(NEWS_HEADER, 1)[1].splitlines()[1:]:
        if not line.startswith("- "):
            break
        match = re.match(r'- (?:\(heard from [^)]*\) )?about (.+?): "(.*)"$', line.strip())
        if match:
            items.append((match.group(1), match.group(2)))
    return items


class DeterministicLLM(ScriptedLLM):
    """The server (ScriptedLLM's HTTP plumbing with answers computed from each request); use
    as a context manager or `start()` / `stop()`. `base_url` ends in /v1."""

    def __init__(
        self,
        seed: int = 0,
        *,
        tag_rate: float = 0.5,
        extract_rate: float = 0.5,
        port: int = 0,
    ):
        self.seed = seed
        self.tag_rate = tag_rate
        self.extract_rate = extract_rate
        self.calls: dict[str, int] = {}
        super().__init__(self.reply, port=port)

    # ------------------------------------------------------------ answers

    def _rng(self, *parts) -> random.Random:
        """A generator seeded by the seed and the request's content: same request, same answer."""
        digest = hashlib.sha256("\x1f".join([str(self.seed), *map(str, parts)]).encode())
        return random.Random(int(digest.hexdigest()[:16], 16))

    @staticmethod
    def feature_of(body: dict) -> str:
        named = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        if named:
            return named
        system = (body.get("messages") or [{}])[0].get("content", "")
        # Tiers with structured_output "json_object" or "none" send no name: read the prompt.
        for feature, marker in (
            ("gossip", "list what each said about OTHER people"),
            ("extraction", "keep a memory of people"),
            ("reflection", "You are the inner voice of"),
            ("diary", "diary entry for day"),
        ):
            if marker in system:
                return feature
        return "voice"

    def reply(self, body: dict) -> str:
        feature = self.feature_of(body)
        with self._lock:
            self.calls[feature] = self.calls.get(feature, 0) + 1
        messages = body.get("messages") or [{"content": ""}]
        handler = {
            "gossip": self._gossip,
            "extraction": self._extraction,
            "reflection": self._reflection,
            "diary": self._diary,
        }.get(feature, self._voice)
        return handler(messages)

    def _voice(self, messages) -> str:
        system = messages[0].get("content", "")
        last = messages[-1].get("content", "")
        name = (re.match(r"You are (.+?)\.", system) or [None, "someone"])[1]
        news = _news(system)
        if news:  # talking with another NPC: pass on the next thing it knows
            said = sum(1 for m in messages[1:-1] if m.get("role") == "assistant")
            subject, fact = news[said % len(news)]
            return f"Have you heard about {subject}? {fact}"
        match = re.match(r"(.+?) says: (.*)", last, re.DOTALL)
        if not match:  # an NPC opening with nothing to share
            return "Quiet day, is it not?"
        speaker, text = match.group(1), match.group(2).strip()
        text = re.sub(r"\n\n\(.*\)\s*$", "", text, flags=re.DOTALL).strip()  # a retry's reminder
        rng = self._rng("voice", name, speaker, text, len(messages))
        line = rng.choice(OPENERS).format(speaker=speaker) + " " + rng.choice(ANSWERS)
        if rng.random() < self.tag_rate:
            value = f"{speaker} told me: {text.rstrip('.!?')}."
            tag = {
                "key": _slug(text),
                "value": value.replace('"', "'")[:200],
                "importance": rng.randint(3, 7),
                "feeling": rng.choice(FEELINGS),
            }
            line += " [[REMEMBER:" + json.dumps(tag) + "]]"
            if rng.random() < 0.3:
                line += f' [[OPINION:"{speaker} has a lot to say."]]'
        return line

    def _gossip(self, messages) -> str:
        user = messages[-1].get("content", "")
        known = dict(
            (name.strip(), cid) for cid, name in re.findall(r"^- id (\d+): (.+)$", user, re.M)
        )
        items = []
        for speaker_id, text in re.findall(r'^.+? \(id (\d+)\): "(.*)"$', user, re.M):
            match = HEARD.search(text)
            if match and match.group(1) in known:
                items.append(
                    {
                        "speaker_id": speaker_id,
                        "subject_id": known[match.group(1)],
                        "fact": match.group(2),
                        "importance": 8,
                        "feeling": "surprise",
                    }
                )
        return json.dumps({"items": items})

    def _extraction(self, messages) -> str:
        system, user = messages[0].get("content", ""), messages[-1].get("content", "")
        # The review shows only the speaker's lines, numbered: 'Lines Ada said to Maren:'.
        speaker = (re.search(r"Lines (.+?) said to ", user) or [None, "?"])[1]
        rng = self._rng("extraction", user)
        memories = []
        lines = re.findall(r'^\d+\. "(.*)"$', user, re.M)
        if lines and rng.random() < self.extract_rate:
            text = rng.choice(lines).rstrip(".!?")
            memories.append(
                {
                    "key": "mentioned_" + _slug(text, 2),
                    "value": f"{speaker} mentioned that {text[0].lower() + text[1:]}.",
                    "importance": rng.randint(3, 6),
                    "feeling": "neutral",
                }
            )
        return json.dumps({"memories": memories})

    def _reflection(self, messages) -> str:
        user = messages[-1].get("content", "")
        target = (re.search(r"Recent memories about (.+?) \(oldest first\)", user) or [0, "them"])[
            1
        ]
        heard = "(heard from" in user
        # Drawn from the newest memory, as a belief must be (memory/grounding.py).
        quoted = re.findall(r'"([^"\n]+)"', user.split("Recent memories about", 1)[-1])
        newest = quoted[-1].rstrip(".") if quoted else f"{target} is about"
        belief = f"I gather that {newest}." if heard else f"I have seen it myself: {newest}."
        return json.dumps(
            {"beliefs": [{"belief": belief, "importance": 5}], "reasoning": "deterministic"}
        )

    def _diary(self, messages) -> str:
        system, user = messages[0].get("content", ""), messages[-1].get("content", "")
        day = (re.search(r"diary entry for day (\d+)", system) or [0, "?"])[1]
        first = next((ln[2:] for ln in user.splitlines() if ln.startswith("- ")), "nothing much")
        entry = f"Day {day} is done. What stays with me: {first.strip()[:200]}"
        return json.dumps({"entry": entry, "importance": 4})

    # ------------------------------------------------------------ HTTP
