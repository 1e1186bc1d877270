"""The JSON schemas sent to servers are generated from the pydantic models that validate."""

import pytest

from omniira_evennia.llm.client import schema_of
from omniira_evennia.rollover.diary import DiaryReply
from omniira_evennia.rollover.reflection import ReflectionReply
from omniira_evennia.social.gossip import GossipItems

SAMPLE = {"string": "Ada mends clocks", "integer": 6}


def example(schema):
    """The smallest document the schema demands (every required property filled in)."""
    kind = schema.get("type")
    if kind == "object":
        return {name: example(schema["properties"][name]) for name in schema["required"]}
    if kind == "array":
        return [example(schema["items"])]
    return SAMPLE[kind]


@pytest.mark.parametrize("model", [DiaryReply, ReflectionReply, GossipItems])
def test_a_reply_shaped_by_the_schema_validates(model):
    schema = schema_of(model)
    assert "$defs" not in str(schema) and "$ref" not in str(schema)
    assert schema["additionalProperties"] is False
    model.model_validate(example(schema))


def test_limits_on_the_model_reach_the_schema():
    beliefs = schema_of(ReflectionReply)["properties"]["beliefs"]
    assert beliefs["maxItems"] == 2
    item = schema_of(GossipItems)["properties"]["items"]["items"]
    assert item["required"] == ["speaker_id", "subject_id", "fact", "importance", "feeling"]
