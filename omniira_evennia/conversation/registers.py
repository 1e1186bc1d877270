"""
Words of a register other than a person's in the world, said by an NPC: an assistant's
(`ASSISTANT`: "Let me know if you need anything else", "You don't have enough information"),
its prompt's (`OWN_NOTES`: "According to my memories", "My memories are not about birth"), and
today's slang (`MODERN`: "That's very cool"). voice.slips names them `assistant_voice` (the
assistant's and the slang) and `speaks_of_its_notes`. What the NPC's world has not ("the
hospital") is `out_of_world`, against the game's own list of words.

Plain Python.
"""

from __future__ import annotations

import functools
import re

from omniira_evennia.conversation.words import capped, rx, sentence_list

ASSISTANT = re.compile(
    r"\b(?:how (?:can|may) i (?:help|assist)|(?:anything|something) else (?:i can|you need|"
    r"i could)|(?:do|can) you (?:need|want) (?:any )?(?:help|assistance)|need (?:any )?help with|"
    r"(?:please )?provide (?:me with )?(?:more |some )?(?:context|details|information)|"
    r"could you (?:please )?(?:clarify|specify|elaborate)|let me know (?:if|how|what)|"
    r"feel free to|i'?m (?:always )?here to (?:help|assist)|happy to (?:help|assist)|"
    r"(?:any|some) (?:other |more )?(?:tips|insights?|advice|suggestions) (?:for|on|into|about)|"
    # "It sounds like an opportunity to make a difference in the town." (held-out seed 97301)
    r"make a (?:real |positive )?difference in\b|"
    r"as an ai\b|language model|virtual assistant|(?:i'?m|i am) (?:just )?an? (?:\w+ )?assistant\b|"
    r"(?:any|have) (?:more|other|further) questions|(?:concerns|questions) or (?:concerns|questions)|"
    r"(?:is there )?anything else (?:you'?d|you would|you want|i can)|"
    # "... so I cannot provide you with a memory or an answer" (held-out seed 62219)
    r"(?:can'?t|cannot|unable to) (?:provide|give|offer) (?:you )?(?:with )?(?:a |an |any )?"
    r"(?:response|answer|information|details|memory)|i can'?t help you with|"
    r"(?:i|you) (?:don'?t|do not) have (?:access to|personal|real-time|up-to-date|(?:any |the )?"
    r"information)|"
    r"(?:i'?m|i am|you'?re|you are) (?:sorry|afraid),? but (?:i|you) (?:don'?t|can'?t|cannot|"
    r"am unable|are unable))"
    # An essay's advice (held-out seed 41257: Maren on being a jeweller, "This profession
    # requires ... it's important to be well-prepared ... Overall, this profession is ...").
    r"|\bit'?s (?:important|essential|crucial|vital) (?:to|that)\b"
    # "That's interesting. Did you hear any other things?" to pilgrims on the road (seed 38917)
    r"|\b(?:any|some) other things\b"
    # "You're welcome to ask anything you like, but remember, I'm just a storyteller, not a
    # recipe book." to "what should you keep off my plate?" (held-out seed 51263)
    r"|\byou'?re welcome to ask (?:me )?anything\b"
    # "It's always good to stay informed about our neighbors." (held-out seed 71993)
    r"|\bit'?s always (?:good|wise|important|best|a good idea) to\b|\bstay informed\b"
    r"|(?:^|[.!?]\s+)(?:additionally|overall|furthermore|in conclusion|in summary),"
    r"|\bwith this knowledge\b|\b(?:a )?good starting point\b"
    # "That's an interesting piece of information, Leander." (held-out seed 19447)
    r"|\binteresting (?:piece of )?information\b"
    # "Sorry, Winslow. You don't have enough information about Lyra or her presence." to "It has
    # not stopped raining since this morning." (held-out seed 71993)
    r"|\b(?:enough|sufficient) (?:information|context|details)\b"
    # "Oh no! I'm sorry to hear that. Can I help with anything else?" to news of a brawl, "Is
    # there anything I can do to help you?" to news of a clerk leaving (held-out seed 86753).
    r"|\b(?:can|may) i (?:help|assist)(?: you)? with anything\b"
    r"|\banything (?:else )?i can do to help you\b"
    # "Do you have any questions about reading and writing?" (held-out seed 40813)
    r"|\bany questions (?:about|on|regarding)\b"
    # A shop assistant's goodbye ("You're welcome, Nerys! I'll be here if you need anything
    # else.", held-out busy run, seed 62903).
    r"|\bif you (?:need|want|require) anything(?: else)?\b"
    # The whole offer, nothing the NPC would do: "Oh no, Marisol! I'm sorry about that. Let me
    # help you." (held-out seed 45119), not "Let me help you with that sack."
    r"|\blet me (?:help|assist) you(?: with (?:that|this|anything))?\s*(?:[.!]|$)"
    # "Sorry, but I don't think I can assist with that." to "I am deathly afraid of wolves"
    # (held-out busy seed 66617).
    r"|\bi (?:don'?t think i )?can(?:'?t|not)? (?:assist|help) (?:you )?with that\s*(?:[.!?]|$)"
    # A refusal in a trade's name: "I'm sorry, but as a blacksmith, I don't know or remember
    # your ferret named Clover." (held-out seed 92821)
    r"|\b(?:sorry|afraid),? but as an? \w+(?: \w+)?,? i\b"
    # An interviewer's questions (held-out seed 92821): "How did this experience impact your
    # life?", "I'm curious about your background.", "Do you want to know more about the area?"
    r"|\bexperience (?:impact|affect|shape|influence)\w* (?:your|you)\b"
    r"|\bcurious about your (?:background|experiences?)\b"
    r"|\b(?:do you want|would you like) to (?:know|learn) more about\b"
    # Held-out seed 63341: "If you need any assistance with drying it, let me know!" to a
    # soaked cloak, "I must inform you that garlic can indeed cause issues", "I'm sorry you're
    # having trouble. ... Let's try again.", "How about we talk about your experiences?", "I'll
    # do my best to help you with your food needs."
    r"|\blet me know\s*[.!]|\bneed (?:any )?(?:help|assistance)\b|\bi must inform you\b"
    r"|\bexperiencing (?:a |an |any |some )?(?:problem|issue|difficult)"
    r"|\blet'?s (?:try again|talk about)\b|\bhow about we (?:talk|discuss|chat)\b"
    r"|\byour \w+ needs\b|\bdo my best to help\b|\bi'?m (?:always )?here to listen\b"
    r"|\bif you have any (?:specific |other |further )?(?:concerns|questions)\b"
    # "I'm curious about that. Do you want me to tell you more?" to their ambition (seed 81737)
    r"|\b(?:do you want|would you like) me to (?:tell|explain|help|show)\b"
    # An encyclopedia's caution: "It can depend on the individual's sensitivity to garlic"
    r"|\bthe individual'?s\b|\b(?:for|in) some (?:people|individuals)\b"
    # Held-out seed 74573: "What would you like to know about bees?" to a beekeeper; "Let's start
    # by discussing the features and considerations needed for building a windmill"; "I'll keep
    # an eye on ... for any updates"; "any other interesting aspects of his life?"
    r"|\bwhat (?:would|do) you (?:like|want) to (?:know|learn|discuss)\b|\blet'?s start by\b"
    r"|\bexplore the possibilit|\bfor (?:any )?(?:further )?updates\b|\baspects of\b"
    # An encyclopedia's and a safety officer's words (telnet trial, 2026-12-07): "The rash from
    # eating eggs is a common side effect of eating eggs.", "That's a common problem with
    # cloaks." (busy seed 81239), "I will make sure to watch out for fire hazards."
    r"|\b(?:a )?common (?:side effects?|problem|issue|condition|symptom|reaction)s? (?:of|with)\b"
    r"|\bside effects?\b|\b(?:fire|safety|health) hazards?\b"
    # Held-out busy seed 62477: "I understand the situation, Delphine. Let me take care of that
    # for you." to news of a fall, "It may be a personal object or a piece of art that holds
    # special meaning for you." to a key treasured, "You can't infer anything from the details
    # given" (seed 50993).
    r"|\bi understand the situation\b|\btake care of (?:that|it|this) for you\b"
    r"|\bholds? (?:a )?special meaning\b|\bpiece of art\b|\binfer\b|\bthe details given\b"
    # "Is there anything else on your mind?" (telnet trial, 2026-12-07, to the rain)
    r"|\banything else on your mind\b"
    # Held-out seed 31079, second tries: "Oh, sorry, I didn't understand what you meant. Could
    # you please rephrase your question?" to a home told; "... as I am not supposed to give
    # information about your possessions." to a key treasured; "I am aware of the latest news."
    r"|\brephrase\b|\bi (?:didn'?t|did not|don'?t|do not) understand (?:what you mean|your q)"
    # "I'm sorry, Desmond. I can't understand what you're trying to say." to a compass shown
    # (held-out seed 61507)
    r"|\b(?:can'?t|cannot|don'?t|do not) understand what you(?:'re| are) (?:trying to say|saying)\b"
    r"|\bnot (?:supposed|allowed|permitted|able) to (?:give|share|provide|disclose) (?:you )?"
    r"(?:any )?information\b|\bi(?:'m| am) (?:well |already )?aware of\b"
    # "What are some things that interest you?" (the same run), "onions can cause nausea."
    r"|\bwhat are some (?:things|ways|of the)\b|\b(?:can|may|might) (?:cause|trigger)\b"
    # Held-out busy seed 42139: "It's a serious issue that needs medical attention.", "...
    # depending on the time of day and the weather system.", "I'm glad I could help you today."
    r"|\bmedical (?:attention|help|care|advice)\b|\bweather system\b|\bglad i could help\b"
    # Held-out seed 58447: "I'm here for you, Bram. What do you need?" to "Lyra, what is it you
    # do?"; "Oh no, Jericho! Is it okay if I can't help you?" to a soaked cloak.
    r"|\bi'?m here for you\b|\bwhat do you need\b|\bis it (?:okay|ok|alright) if\b"
    # "I'm sorry, Fiora. I'm not sure what you are asking me about." to a stonemason telling of
    # her trade (held-out seed 33457): a help desk's confusion, and nothing was asked.
    # "I don't know what you're talking about." is a person's (to a never-told question).
    r"|\bnot sure what you(?:'re| are)? (?:mean|asking)\b|\b(?:don'?t|do not) know what you(?:'re| are) asking\b"
    # Held-out seed 46271: "Let's go back to the bar and talk about your thoughts and
    # feelings." to a soaked cloak; "Yes, Lavinia, I understand your concern." to the weather.
    r"|\bthoughts and feelings\b|\bunderstand your (?:concern|frustration|feelings)\b"
    # "It will require a lot of hard work and dedication." (held-out seed 61507)
    r"|\bhard work and (?:dedication|determination|commitment)\b"
    # Busy seed 52967: "You should investigate Petra's story, Gareth." to news of silver found,
    # "You know so much about this town." to a pendant treasured.
    r"|\binvestigat\w*\b|\byou know (?:so much|a lot|so many things) about\b"
    # Held-out seed 17389: "That's a good tip. Thanks for sharing." to an allergy told.
    r"|\bthanks? (?:you )?for sharing\b|\b(?:a )?(?:good|great|useful|helpful) tip\b",
    re.IGNORECASE,
)


# The prompt's headings ("YOUR MEMORIES", "Your notes about ...", what "you know") read back
# to the player. "My memories of that winter" is a person talking; "your memories" said by the
# NPC, or "according to the notes", is the prompt.
OWN_NOTES = re.compile(
    r"\byour (?:memories|memory|notes|knowledge)\b"
    r"|\b(?:according to|based on) (?:your|my|the) "
    r"(?:memories|memory|notes|information|knowledge)\b"
    r"|\bthe information (?:provided|given|you (?:provided|gave|shared)|i'?ve been given|"
    r"i was given)\b"
    r"|\bin (?:the|this) (?:world you know|story world)\b"
    r"|\bfactually (?:incorrect|correct|accurate)\b"
    # The never-told note said aloud: "You know nothing about your cat: Rhosyn never told you."
    r"|\byou know nothing (?:about|of)\b[^.!?]*:"
    r"|\bwithout (?:more|further|additional) (?:context|information)\b"
    r"|\b(?:any|additional) information about\b"
    # "I don't have any memories about Faelan." (held-out seed 71359): the prompt's word.
    r"|\b(?:any|no) memor(?:y|ies) (?:about|of)\b"
    # "Not sure, Winslow. My memories are not about birth." (held-out seed 71993)
    r"|\bmy (?:memories|notes) (?:are|do|don'?t|say|tell|show|contain|mention)\b"
    r"|\bcontradicts my (?:knowledge|information|memories|notes)\b"
    # "... because he is described as a dog who hates the rain." (held-out seed 29881)
    r"|\b(?:is|are|was|were) described as\b"
    # "I only know what I know about the world." to news of Wren leaving (busy seed 52967)
    r"|\bwhat i know (?:about|of) the world\b",
    re.IGNORECASE,
)


# Today's slang in a townsfolk's mouth: "Oh, I see! That's very cool, Yestin." to a grandfather's
# silver compass (held-out seed 71993). Cool water and a cool evening are the weather.
MODERN = re.compile(
    r"\b(?:(?:very|so|pretty|really|super)\s+)?cool(?=\s*(?:[,.!?]|$|,?\s+[A-Z][a-z]+\W*$))"
    r"|\b(?:awesome|dude|no worries|sweetie)\b"
    # "... a great way to generate clean energy." of a windmill (held-out seed 70919)
    r"|\b(?:clean|green|renewable) energy\b|\belectricity\b"
    # "No, Araminta. I moved here in 2010." (held-out seed 74573): today's calendar.
    r"|\b(?:in|since|from|until|of) (?:19|20)\d\d\b",
    re.IGNORECASE,
)


OUT_OF_WORLD = "speaks_of_another_world"  # the slip's name (guard.knowing_slips)


def out_of_world(reply: str, words: list[str], known: str) -> list[str]:
    """The sentences of `reply` naming one of `words` (the game's OUT_OF_WORLD_WORDS) that
    `known` (the player's line and what the NPC knows) does not name."""
    reply, words = capped(reply), [w for w in words[:500] if w]
    # Most replies name none of them: one search of the reply, before any of the NPC's
    # knowledge is read for each word (0.5-1 ms of every reply with a game's word list).
    if not words or not rx(_any_of(tuple(words)), re.IGNORECASE).search(reply):
        return []
    known = capped(known)
    foreign = [w for w in words if not re.search(rf"\b{re.escape(w)}\b", known, re.I)]
    if not foreign:
        return []
    pattern = re.compile(_any_of(tuple(foreign)), re.IGNORECASE)
    return [s for s in sentence_list(reply) if pattern.search(s)]


@functools.lru_cache(maxsize=64)
def _any_of(words: tuple[str, ...]) -> str:
    return r"\b(?:" + "|".join(map(re.escape, words)) + r")\b"
