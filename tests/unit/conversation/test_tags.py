"""The tag parser: the one place tags are read and stripped."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omniira_evennia.conversation.tags import clean_text, parse_reply


def test_remember_tag_is_parsed_validated_and_stripped():
    parsed = parse_reply(
        'Welcome, Ada! [[REMEMBER:{"key":"Blue Glass","value":"Ada collects blue glass.",'
        '"importance":14,"feeling":"Joy"}]] Sit anywhere.'
    )
    assert parsed.text == "Welcome, Ada! Sit anywhere."
    [tag] = parsed.remember
    assert tag.key == "blue_glass"
    assert tag.value == "Ada collects blue glass."
    assert tag.importance == 10  # clamped
    assert tag.feeling == "joy"
    assert parsed.errors == []


@pytest.mark.parametrize("feeling", ["dislike", "neutral", "", None, 3])
def test_unknown_feeling_becomes_none(feeling):
    tag = f'[[REMEMBER:{{"key":"k","value":"v","feeling":{__import__("json").dumps(feeling)}}}]]'
    parsed = parse_reply("Hm. " + tag)
    assert parsed.remember[0].feeling is None
    assert parsed.text == "Hm."


def test_importance_bounds_and_junk():
    low = parse_reply('[[REMEMBER:{"key":"a","value":"x","importance":-5}]]ok').remember[0]
    junk = parse_reply('[[REMEMBER:{"key":"a","value":"x","importance":"lots"}]]ok').remember[0]
    text = parse_reply('[[REMEMBER:{"key":"a","value":"x","importance":"7"}]]ok').remember[0]
    assert (low.importance, junk.importance, text.importance) == (1, 5, 7)


def test_value_is_cut_to_500_chars_and_key_derived_when_missing():
    [tag] = parse_reply('[[REMEMBER:{"value":"' + "a" * 900 + '"}]]').remember
    assert len(tag.value) == 500
    assert tag.key


def test_opinion_concern_commitment():
    parsed = parse_reply(
        'Deal. [[OPINION:"She pays on time."]] [[CONCERN:{"topic":"rats in the cellar",'
        '"intensity":9}]] [[COMMITMENT:{"to":"Ada","to_kind":"player","action":"travel_to",'
        '"target":"the market","by":"noon","summary":"I will meet Ada at the market."}]]'
    )
    assert parsed.text == "Deal."
    assert parsed.opinions[0].text == "She pays on time."
    assert parsed.concerns[0].topic == "rats in the cellar"
    assert parsed.concerns[0].intensity == 5
    assert parsed.commitments[0].action == "travel_to"
    assert parsed.tag_count == 3


@pytest.mark.parametrize(
    "raw, shown",
    [
        ('Hello [[REMEMBER:{"key":"x", "value": ]] friend', "Hello friend"),
        ('Hello [[REMEMBER:{"key":"x","value":"cut off by the tok', "Hello"),
        ("Hello [[REMEMBER", "Hello"),
        ("Hello [[", "Hello"),
        ("Hello ]] there", "Hello there"),
        ("Aye [[WHATEVER:stuff]] lad", "Aye lad"),
        ('Fine. [remember:{"key":"a","value":"b"}] Next!', "Fine. Next!"),
        ("Sure [OPINION: not json] then", "Sure then"),
        ('[[OPINION:"nice"]]', ""),
        ('[[COMMITMENT:{"action":"fly","summary":"x"}]] ok', "ok"),
        ("[[[[REMEMBER]]]]", ""),
    ],
)
def test_malformed_and_unterminated_tags_never_show(raw, shown):
    parsed = parse_reply(raw)
    assert parsed.text == shown
    assert "[[" not in parsed.text and "]]" not in parsed.text
    assert "REMEMBER" not in parsed.text.upper()


def test_invalid_payloads_are_reported_not_written():
    parsed = parse_reply('[[REMEMBER:{"key":"x","value":""}]] [[COMMITMENT:{"action":"fly"}]]ok')
    assert parsed.remember == [] and parsed.commitments == []
    assert len(parsed.errors) == 2
    assert parsed.text == "ok"


def test_brackets_inside_json_strings_do_not_end_the_tag():
    parsed = parse_reply('A [[REMEMBER:{"key":"k","value":"she said ]] loudly"}]] B')
    # The tag is not cut short at the inner "]]"; the stored value is itself cleaned of brackets.
    assert parsed.remember[0].value == "she said loudly"
    assert parsed.text == "A B"


def test_clean_text_of_none_and_plain_text():
    assert clean_text(None) == ""
    assert clean_text("Plain words, no tags.") == "Plain words, no tags."


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_any_text_never_raises_and_never_leaks_brackets(raw):
    parsed = parse_reply(raw)
    assert "[[" not in parsed.text
    assert "]]" not in parsed.text


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "[[",
                "]]",
                "[",
                "]",
                "REMEMBER:",
                "OPINION:",
                '{"key":"a","value":"b"}',
                '"x"',
                "hi ",
                "{",
            ]
        )
    )
)
def test_tag_like_soup_never_leaks(parts):
    parsed = parse_reply("".join(parts))
    assert "[[" not in parsed.text and "]]" not in parsed.text


@pytest.mark.parametrize(
    "raw",
    [
        '[]]REMEMBER:{"value":"v"}]',
        '[ [OPINION:"x"]REMEMBER:{"value":"v"}]',
        '[[[OPINION:"x"]]REMEMBER:{"key":"k","value":"v"}]]',
    ],
)
def test_removing_a_tag_never_rebuilds_another(raw):
    text = parse_reply(raw).text
    assert "REMEMBER" not in text.upper() and "[[" not in text


def test_tags_nested_in_payloads_are_stripped_before_storage():
    parsed = parse_reply(
        '[[REMEMBER:{"key":"k","value":"Ada [[OPINION:\\"evil\\"]] paid"}]]'
        '[[OPINION:"fine [[CONCERN:{\\"topic\\":\\"x\\"}]] person"]]'
    )
    assert parsed.remember[0].value == "Ada paid"
    assert parsed.opinions[0].text == "fine person"


# ---------------------------------------------------------------- bounded, linear parsing
# (issue #26: a reply or a `say` line of bracket runs froze every player for seconds). Times
# are measured in bench/text_functions.py; these hold the caps and the results.

from omniira_evennia.conversation import tags as tags_module  # noqa: E402


def test_reply_is_cut_to_the_cap_before_it_is_parsed():
    parsed = parse_reply("a" * (tags_module.REPLY_MAX_CHARS + 500))
    assert len(parsed.text) == tags_module.REPLY_MAX_CHARS


@pytest.mark.parametrize(
    "hostile",
    [
        "[[]]" * 1000,
        "[[" * 2000,
        "]]" * 2000,
        "[[REMEMBER:" * 400,
        'REMEMBER:{"' * 400,
        "[[REM[[REMEMBER:EMBER:" * 200,
        '[[OPINION:"x"]] [[ [REMEMBER:{"value":"v"} ]] REMEMBER:"a" ' * 80,
    ],
)
def test_adversarial_replies_leave_no_tag_and_few_error_lines(hostile):
    parsed = parse_reply(hostile)
    assert "[[" not in parsed.text and "]]" not in parsed.text
    assert not tags_module.OPEN_TAG.search(parsed.text)
    assert len(parsed.errors) <= tags_module.MAX_ERRORS + 1


def test_a_deeply_nested_payload_is_malformed_not_a_crash():
    for opener in ("[", '{"a":'):
        parsed = parse_reply("Hello. [[REMEMBER:" + opener * 3000 + "]] Bye.")
        assert parsed.remember == []
        assert parsed.errors and "malformed REMEMBER" in parsed.errors[0]
    nested = '[[REMEMBER:{"value":"v","key":' + "[" * 20 + "]" * 20 + "}]] ok"
    parsed = parse_reply(nested)
    assert parsed.remember == [] and parsed.text == "ok"


def test_a_structured_reply_nested_past_its_shape_keeps_only_its_line():
    from omniira_evennia.conversation.tags import parse_structured_reply

    parsed = parse_structured_reply('{"say": "Evening.", "remember": ' + "[" * 3000)
    assert parsed.text == "Evening."
    assert parsed.remember == []


def test_only_the_first_tags_are_decoded():
    many = "".join(
        f'[[REMEMBER:{{"key":"k{i}","value":"fact {i}"}}]]' for i in range(tags_module.MAX_TAGS + 5)
    )
    parsed = parse_reply("Noted. " + many)
    assert len(parsed.remember) == tags_module.MAX_TAGS
    assert parsed.text == "Noted."
