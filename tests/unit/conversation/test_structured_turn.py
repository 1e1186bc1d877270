"""The structured turn (turn_format "json") and the voice turn's second try: pure, no Evennia."""

import json

import pytest

from omniira_evennia.conversation import plain_lines
from omniira_evennia.conversation.claims import give_back_claims
from omniira_evennia.conversation.guard import is_echo
from omniira_evennia.conversation.prompts import (
    Turn,
    build_messages,
    gloss,
)
from omniira_evennia.conversation.reminders import asked_again
from omniira_evennia.conversation.tags import (
    StructuredTurn,
    is_placeholder_key,
    parse_reply,
    parse_structured_reply,
)
from omniira_evennia.conversation.turn import run_turn, structured_turn_schema
from omniira_evennia.llm.client import LLMError, Usage, schema_of
from omniira_evennia.memory.grounding import ground
from tests.support.voice_turn import FakeClient, conf, turn_input


def turn_json(say, remember=(), **extra):
    body = {"say": say, "remember": list(remember), "opinion": None, "concern": None}
    body["commitment"] = None
    body.update(extra)
    return json.dumps(body)


# ---------------------------------------------------------------- parsing and the schema


def test_schema_is_generated_from_the_tag_models():
    schema = schema_of(StructuredTurn)
    assert schema["properties"]["say"] == {"type": "string"}
    note = schema["properties"]["remember"]["items"]
    assert set(note["properties"]) == {"key", "value", "importance", "feeling"}
    assert schema["properties"]["remember"]["maxItems"] == 4
    commitment = schema["properties"]["commitment"]["anyOf"][0]
    assert commitment["properties"]["action"]["enum"] == ["travel_with", "travel_to"]
    assert "$ref" not in json.dumps(schema)


def test_structured_reply_becomes_the_same_parsed_reply_as_tags():
    note = {"key": "trade", "value": "Ada is a clockmaker.", "importance": 6, "feeling": "joy"}
    structured = parse_structured_reply(
        turn_json("A clockmaker, love?", [note], opinion="She is handy.")
    )
    tagged = parse_reply(
        "A clockmaker, love? [[REMEMBER:" + json.dumps(note) + ']] [[OPINION:"She is handy."]]'
    )
    assert structured == tagged
    assert structured.remember[0].key == "trade" and structured.remember[0].importance == 6


def test_each_entry_is_validated_on_its_own():
    parsed = parse_structured_reply(
        turn_json(
            "Evening.",
            [
                {"key": "k", "value": ""},
                {"key": "pet", "value": "Ada has a cat.", "importance": 99},
            ],
            concern={"topic": "rats", "intensity": "9"},
            commitment={"action": "fly", "summary": "x"},
        )
    )
    assert parsed.text == "Evening."
    assert [t.value for t in parsed.remember] == ["Ada has a cat."]
    assert parsed.remember[0].importance == 10
    assert parsed.concerns[0].intensity == 5
    assert parsed.commitments == []
    assert len(parsed.errors) == 2


def test_tags_inside_the_spoken_line_are_parsed_and_stripped():
    parsed = parse_structured_reply(
        turn_json('Aye. [[REMEMBER:{"key":"debt","value":"Ada owes me a silver."}]]')
    )
    assert parsed.text == "Aye."
    assert parsed.remember[0].key == "debt"


def test_a_reply_cut_off_keeps_its_whole_sentences():
    parsed = parse_structured_reply('{"say": "Evening, love. You look tired. And wh')
    assert parsed.text == "Evening, love. You look tired."
    assert parsed.errors
    parsed = parse_structured_reply('{"say": "Evening.", "remember": [{"key": "tr')
    assert parsed.text == "Evening." and parsed.remember == []


def test_prose_instead_of_json_is_read_as_a_tagged_reply():
    parsed = parse_structured_reply('Cider, love? [[OPINION:"pleasant"]]')
    assert parsed.text == "Cider, love?" and parsed.opinions[0].text == "pleasant"
    assert parse_structured_reply('{"say": ').text == ""
    assert parse_structured_reply(None).text == ""


@pytest.mark.parametrize(
    "key", ["short_snake_case", "snake_case", "key", "fact_2", "example_key", "my_snake_case_key"]
)
def test_placeholder_keys_are_replaced_by_one_from_the_value(key):
    assert is_placeholder_key(key)
    [tag] = parse_reply(
        '[[REMEMBER:{"key":"' + key + '","value":"Ada mends clocks in Vellmoor"}]]ok'
    ).remember
    assert tag.key == "ada_mends_clocks_in_vellmoor"


def test_real_keys_are_kept():
    for key in ("trade", "missing_sister", "home_town", "pet_dog", "keys_to_the_cellar"):
        assert not is_placeholder_key(key)


# ---------------------------------------------------------------- the voice turn


def test_json_turn_asks_for_the_schema_and_writes_notes():
    note = {"key": "trade", "value": "Ada mends clocks.", "importance": 6, "feeling": None}
    client = FakeClient(turn_json("Clocks! Handy, love.", [note]))
    result = run_turn(turn_input(), conf(), client)
    assert result.ok and result.parsed.text == "Clocks! Handy, love."
    assert [t.key for t in result.parsed.remember] == ["trade"]
    assert client.requests[0]["schema"] == structured_turn_schema()
    assert structured_turn_schema()["required"] == ["say", "remember"]
    assert structured_turn_schema()["properties"] == schema_of(StructuredTurn)["properties"]
    system = client.requests[0]["messages"][0]["content"]
    assert '"remember"' in system and "[[REMEMBER:" not in system


def test_tags_turn_sends_no_schema():
    client = FakeClient('Clocks, love? [[REMEMBER:{"key":"trade","value":"Ada mends clocks."}]]')
    result = run_turn(turn_input(), conf("tags"), client)
    assert client.requests[0]["schema"] is None
    assert result.parsed.text == "Clocks, love?" and result.parsed.remember[0].key == "trade"
    assert "[[REMEMBER:" in client.requests[0]["messages"][0]["content"]


def test_notes_that_name_nobody_are_dropped_and_the_rest_left_to_the_write_policy():
    notes = [
        {"key": "trade", "value": "Ada mends clocks.", "importance": 5, "feeling": None},
        {
            "key": "job",
            "value": "Ada runs the tavern and pours cider.",
            "importance": 5,
            "feeling": None,
        },
        {"key": "name", "value": "Ada is Ada.", "importance": 5, "feeling": None},
        {"key": "where", "value": "clocks", "importance": 5, "feeling": None},
    ]
    result = run_turn(turn_input(), conf(), FakeClient(turn_json("Clocks, love?", notes)))
    # "clocks" says whose it is nowhere; the others name Ada and reach the write policy,
    # which keeps only what rests on her words (memory/grounding.py).
    assert [t.key for t in result.parsed.remember] == ["trade", "job", "name"]
    said = [turn_input().context.message]
    grounded = [
        t.key
        for t in result.parsed.remember
        if ground(t.value, said, subject="Ada", npc="Maren").ok
    ]
    assert grounded == ["trade"]


ASKING = "I mend clocks for a living. Is there work for me in town?"  # asked again, not mended


def test_narration_is_asked_again_once():
    client = FakeClient(turn_json("Maren smiles, feeling grateful."), turn_json("Clocks, love?"))
    result = run_turn(turn_input(ASKING), conf(), client)
    assert result.parsed.text == "Clocks, love?"
    assert len(client.requests) == 2
    assert "say aloud" in client.requests[1]["messages"][-1]["content"]
    assert result.usage.tokens_in == 200 and result.usage.tokens_out == 20


def test_a_reply_of_only_tags_keeps_its_notes_and_gets_a_line():
    client = FakeClient(
        '[[REMEMBER:{"key":"trade","value":"Ada mends clocks for a living."}]]',
        "Clocks! Handy.",
    )
    result = run_turn(turn_input(), conf("tags"), client)
    assert result.ok and result.parsed.text == "Clocks! Handy."
    assert [t.key for t in result.parsed.remember] == ["trade"]


def test_an_echo_is_asked_again_and_a_second_failure_keeps_the_first_words():
    client = FakeClient(f"Ada says: {ASKING}", "Maren nods.")
    result = run_turn(turn_input(ASKING), conf("tags"), client)
    assert len(client.requests) == 2
    assert result.ok  # a reply that could not be fixed is still said, not a fallback


def test_twice_empty_is_an_error_and_a_failed_retry_keeps_the_first_reply():
    result = run_turn(turn_input(), conf("tags"), FakeClient('[[OPINION:"x"]]'))
    assert not result.ok and result.error == "empty reply after tags"
    usage = Usage("voice", "conversation", "fake", ok=False)
    # An essay is asked again; the retry fails, and the first reply's first sentences stand.
    essay = (
        "Clocks, is it? Handy work that, Ada. My grandfather kept a clock on the mantel that "
        "never once ran on time, and he grumbled at it every single morning of his long life, "
        "but he would never let anyone else wind it or mend it, not even the old clockmaker "
        "from the market who offered him twice. He said it kept the family's own hours."
    )
    client = FakeClient(essay, LLMError("down", usage))
    result = run_turn(turn_input(ASKING), conf("tags"), client)
    assert len(client.requests) == 2
    assert result.ok and result.parsed.text.startswith("Clocks, is it?")
    assert "grandfather" not in result.parsed.text


def test_a_reply_spoken_as_the_player_is_asked_again():
    client = FakeClient('Ada: "I know you do it, Maren.', "Clocks, love? Handy.")
    result = run_turn(turn_input(ASKING), conf("tags"), client)
    assert len(client.requests) == 2 and result.parsed.text == "Clocks, love? Handy."


@pytest.mark.parametrize(
    "first",
    [
        "Maren smiles, feeling grateful.",
        'Ada: "I know you do it, Maren.',
        "Ada says: I mend clocks.",
    ],
)
def test_a_telling_met_with_no_line_of_its_own_is_mended_with_its_plain_line(first):
    """Told something, the NPC that slipped is not asked again: read by hand, the model's second
    tries to a telling were worse than its plain line (reminders.mended_rather_than_asked)."""
    client = FakeClient(first, "Clocks, love? Handy.")
    result = run_turn(turn_input(), conf("tags"), client)
    assert len(client.requests) == 1
    assert result.parsed.text in plain_lines.all_heard_lines("Ada")


def test_a_question_given_back_as_its_answer_is_asked_again_for_the_npcs_own_words():
    """ "Yes, the forge is always hot." to "Is the forge always this hot, Maren?" (held-out seed
    94727): the retry asks for the NPC's own words, not who it is."""
    client = FakeClient("Yes, the forge is always hot.", "Hot as a dragon's breath, love.")
    result = run_turn(turn_input("Is the forge always this hot, Maren?"), conf("tags"), client)
    assert result.parsed.text == "Hot as a dragon's breath, love."
    reminder = client.requests[1]["messages"][-1]["content"].rsplit("\n\n", 1)[-1]
    assert reminder.startswith("(Answer Ada in your own words, as Maren: not Ada's words back")


def test_a_reply_said_before_in_the_conversation_is_asked_again():
    said = "Oh no, Ada, I'm sorry to hear that. It must have been scary for you."
    history = [Turn("user", "I fear crows."), Turn("assistant", said)]
    client = FakeClient(said, "Rain most of the year, love.")
    result = run_turn(turn_input("Is it always this wet, Maren?", history), conf("tags"), client)
    assert result.parsed.text == "Rain most of the year, love."
    reminder = client.requests[1]["messages"][-1]["content"].rsplit("\n\n", 1)[-1]
    assert reminder.startswith("(You have said that already.")


def test_echo_detection():
    assert is_echo("Ada says: Maren, I am looking for my sister.", "hello", "Ada")
    assert is_echo(
        "I am looking for my sister Odile near the mill.",
        "I am looking for my sister Odile near the mill.",
        "Ada",
    )
    assert not is_echo(  # said back to them: an answer, if a plain one
        "You are looking for your sister Odile near the mill.",
        "I am looking for my sister Odile near the mill.",
        "Ada",
    )
    # Held-out seed 46271: the line but for its full stop, and more words on it.
    assert is_echo(
        "The road was full of pilgrims today, carrying their faith and devotion to the Lord.",
        "The road was full of pilgrims today.",
        "Tamsin",
    )
    assert not is_echo(
        "Your sister? I will ask around, love.",
        "I am looking for my sister Odile near the mill.",
        "Ada",
    )


def test_a_piece_of_their_line_given_back_is_an_echo_and_a_greeting_back_is_not():
    line = "Good evening, Lyra, see this? It's a wooden flute my mother carved."
    # Held-out seed 73811: the player's opening was all the reply said.
    assert is_echo("Good evening, see this?", line, "Urien")
    assert is_echo("A wooden flute, Urien!", line, "Urien")
    assert not is_echo("Good evening, Urien!", line, "Urien")
    assert not is_echo("Your mother carved it? It's lovely.", line, "Urien")


def test_npc_speakers_lines_keep_their_frame():
    ctx = turn_input(
        "Cider, please.", [Turn("user", "Lyra says: Hello."), Turn("assistant", "Hi.")]
    )
    ctx.context.speaker_is_npc = True
    messages = build_messages(ctx.context)
    assert messages[1]["content"] == "Lyra says: Hello."
    assert messages[-1]["content"] == "Ada says: Cider, please."
    assert "WHO IS TALKING TO YOU: Ada" in messages[0]["content"]


def test_a_players_lines_are_quoted_with_the_pronouns_spelled_out():
    ctx = turn_input(
        "Who am I searching for, do you recall?",
        [Turn("user", "I am searching for my sister Odile."), Turn("assistant", "Oh, love.")],
    )
    messages = build_messages(ctx.context, "json")
    assert build_messages(ctx.context, "tags")[1:] == messages[1:]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == 'Ada says to you: "I am searching for my sister Odile."'
    assert messages[2]["content"] == "Oh, love."
    scene = messages[3]["content"]
    assert scene.startswith('Ada says to you: "Who am I searching for, do you recall?"')
    assert "(That is: Who is Ada searching for, do you recall?)" in scene
    assert scene.endswith("do you recall?)")
    assert "Answer Ada as Maren, speaking to Ada." in messages[0]["content"]
    assert "do you know how Bryn earns" in messages[0]["content"]


@pytest.mark.parametrize(
    "line, meaning",
    [
        ("Who am I searching for, do you recall?", "Who is Ada searching for, do you recall?"),
        (
            "Maren, do you remember what I do for a living?",
            "Maren, do you remember what Ada does for a living?",
        ),
        ("What must you never put in my tea?", "What must you never put in Ada's tea?"),
        ("I cannot eat honey.", "Ada cannot eat honey."),
        ("I am a clockmaker; I mend clocks.", "Ada is a clockmaker; Ada mends clocks."),
        ("I told you about my dog.", "Ada told you about Ada's dog."),
        ("Are you well, love?", ""),  # "you" is the NPC; left as it is
        ("Cider, please.", ""),
    ],
)
def test_gloss(line, meaning):
    assert gloss(line, "Ada", "Maren") == meaning


def test_the_speakers_facts_claimed_by_the_npc_are_said_back_to_them():
    history = [
        Turn("user", "I am searching for my sister Odile near the mill."),
        Turn("assistant", "Oh."),
    ]
    inp = turn_input("Who am I searching for, do you recall?", history)
    client = FakeClient(turn_json("Aye, love. I am searching for my sister Odile."))
    result = run_turn(inp, conf(), client)
    assert result.parsed.text == "Aye, love. You are searching for your sister Odile."
    inp = turn_input("Who am I searching for, do you recall?", history)
    client = FakeClient(turn_json("I'm sorry about Odile, love. I pour cider for a living."))
    assert run_turn(inp, conf(), client).parsed.text == (
        "I'm sorry about Odile, love. I pour cider for a living."
    )


@pytest.mark.parametrize(
    "reply, said, expected",
    [
        # Held-out seed 60013 (busy): the player's parrot and home town made the NPC's.
        (
            "Clover was always my friend, Lorcan.",
            "Good evening, Maren, my parrot is called Clover.",
            "Clover was always your friend, Lorcan.",
        ),
        (
            "Yes, Lorcan. Marrowby was where I was born.",
            "I grew up in Marrowby, beyond the marshes.",
            "Yes, Lorcan. Marrowby was where you were born.",
        ),
        # Held-out seed 53309: their fear, claimed with no word of theirs.
        (
            "It has always been a source of fear for me.",
            "Maren, I have been terrified of the dark since I was a child.",
            "It has always been a source of fear for you.",
        ),
        # Held-out seed 35089, in the words of unease.
        (
            "It always makes me feel uneasy.",
            "Wren, I have been terrified of crows since I was a child.",
            "It always makes you feel uneasy.",
        ),
        # Held-out busy seed 66617: their allergy befalling the NPC.
        (
            "Garlic can make me feel uncomfortable sometimes.",
            "Never put garlic in anything you serve me: I'm allergic.",
            "Garlic can make you feel uncomfortable sometimes.",
        ),
        (
            "That makes me glad.",
            "Never put garlic in anything you serve me.",
            "That makes me glad.",
        ),
        # Held-out seed 40813: their allergy "for me"; its own not knowing stays its own.
        (
            "Mushrooms are not edible for me.",
            "Never put mushrooms in anything you serve me: I'm allergic.",
            "Mushrooms are not edible for you.",
        ),
        (
            "I don't know what frightens mushrooms; it's a mystery for me.",
            "Never put mushrooms in anything you serve me: I'm allergic.",
            "I don't know what frightens mushrooms; it's a mystery for me.",
        ),
        # Held-out busy seed 66617: "weaving" and "weaver" are one word's.
        (
            "My weaving skills are quite good, Katriona.",
            "Maren, I earn my living as a basket weaver.",
            "Your weaving skills are quite good, Katriona.",
        ),
        # Held-out busy seed 66617: their question's tag is no one spoken to.
        (
            "I can't eat garlic, do you remember?",
            "Never put garlic in anything you serve me: I'm allergic.",
            "You can't eat garlic, do you remember?",
        ),
        # The NPC's own stance, its own lack of fear, a name in its own greeting: kept.
        ("I know Marrowby well.", "I grew up in Marrowby.", "I know Marrowby well."),
        ("The dark doesn't scare me.", "I'm terrified of the dark.", "The dark doesn't scare me."),
        ("I'm afraid I can't say.", "I'm terrified of the dark.", "I'm afraid I can't say."),
        ("Maren is my name.", "Good evening, Maren, I grew up in Marrowby.", "Maren is my name."),
        # Held-out seed 19447: a mine is no "mine" ("the lost yours of Carrow").
        (
            "I'm curious about the lost mine of Carrow.",
            "I'm putting money aside to find the lost mine of Carrow.",
            "You're curious about the lost mine of Carrow.",
        ),
    ],
)
def test_a_name_or_fear_of_the_speakers_told_story_is_theirs(reply, said, expected):
    assert give_back_claims(reply, [said], [], "Lorcan", "Maren innkeeper")[0] == expected


def test_give_back_claims_uses_what_the_npc_remembers():
    memories = ["Tobiah is a clockmaker.", "Tobiah cannot eat honey, so never put it in their tea."]
    said = ["What do I do?"]
    assert give_back_claims("Yes. I am a clockmaker.", said, memories, "Tobiah") == (
        "Yes. You are a clockmaker.",
        1,
    )
    assert give_back_claims("Honey. Never put it in my tea.", said, memories, "Tobiah") == (
        "Honey. Never put it in your tea.",
        1,
    )
    assert give_back_claims("I know you are a clockmaker.", said, memories, "Tobiah")[1] == 0
    said = ["What must you never put in my tea?"]
    assert give_back_claims("You must never put honey in my tea.", said, [], "Tobiah") == (
        "You must never put honey in your tea.",
        1,
    )
    # A word of the speaker's facts after "I'm", not the NPC's own stance or trade.
    memories = ["Tobiah mends clocks.", "Tobiah is looking for his sister Odile."]
    own = "Maren, tavern keeper: you pour cider and cook a stew."
    assert give_back_claims("Of course. I'm a clockmaker.", said, memories, "Tobiah", own) == (
        "Of course. You're a clockmaker.",
        1,
    )
    for own_words in (
        "I'm so sorry about Odile, love.",
        "I pour cider.",
        "I cook a stew.",
        "I don't know where Odile is.",
        "I can't remember the mill.",
        "I'll be at the mill by noon.",
    ):
        assert give_back_claims(own_words, said, memories, "Tobiah", own)[1] == 0
    # Tried by telnet: "I cannot eat honey, ..." was answered "I don't eat honey, Tobiah."
    said = ["Maren, I cannot eat honey, so never put it in my tea."]
    assert give_back_claims("I don't eat honey, Tobiah.", said, [], "Tobiah", own) == (
        "You don't eat honey, Tobiah.",
        1,
    )


def test_the_diary_shown_to_a_speaker_names_nobody_else():
    ctx = turn_input("Who am I looking for?").context
    ctx.diary = ["Tobiah told me he is looking for his sister Odile. The cellar flooded today."]
    assert "The cellar flooded today." in build_messages(ctx, "json")[0]["content"]
    assert "Odile" not in build_messages(ctx, "json")[0]["content"]
    assert "Odile" not in build_messages(ctx, "tags")[0]["content"]
    ctx.diary = ["Tobiah came by. He cannot abide honey in his tea. The cellar flooded today."]
    assert "honey" not in build_messages(ctx, "tags")[0]["content"]
    assert "The cellar flooded today." in build_messages(ctx, "tags")[0]["content"]
    ctx.diary = ["Ada paid her tab. Voss shouted at Lyra."]
    assert "Ada paid her tab." in build_messages(ctx, "json")[0]["content"]


def test_their_claim_with_a_filler_you_is_still_given_back():
    """Telnet trial, 2026-12-03: "I cannot eat onions, you know. They make you ill." to "Do you
    remember what I cannot eat?" after "I cannot eat onions, they make me ill."."""
    said = ["I cannot eat onions, they make me ill.", "Do you remember what I cannot eat?"]
    text, changed = give_back_claims(
        "I cannot eat onions, you know. They make you ill.", said, [], "Wynne", "Maren"
    )
    assert changed == 1 and text.startswith("You cannot eat onions")
    assert give_back_claims("You know, I pour cider.", said, [], "Wynne", "Maren")[1] == 0


def test_news_met_with_not_knowing_it_is_heard_plainly():
    """ "I don't know if you can touch pepper." to "I can't touch pepper, it makes me sick."
    (held-out seed 11411): told, the NPC says its plain line that it heard."""
    line = "Maren, I can't touch pepper, it makes me sick."
    client = FakeClient("I don't know if you can touch pepper.", "No pepper for you, then.")
    text = run_turn(turn_input(line), conf("tags"), client).parsed.text
    assert len(client.requests) == 1
    assert text in plain_lines.all_heard_lines("Ada")
    # Its reminder, for a line that tells and then asks ("..., do you see?").
    again = asked_again(
        [{"role": "user", "content": line}], turn_input(line).context, "slipped: doubts_the_telling"
    )
    assert again[-1]["content"].endswith(
        "(Ada is telling you this now, so now you know it. Answer as Maren, in your own words.)"
    )
