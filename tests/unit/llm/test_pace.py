"""
Deadlines follow the endpoint's measured pace (issue #24, point 5): a busy machine's slow but
working model is waited for; a hung endpoint is still cut off within pace_cap times the
tier's deadline. Against a scripted OpenAI-compatible server.
"""

import pytest

from omniira_evennia.conf import TierSettings
from omniira_evennia.llm.client import LLMClient, LLMError, Pace
from omniira_evennia.testing.fakes import ScriptedLLM


def tier(url, **extra):
    return TierSettings(base_url=url, model="m", timeout=5, deadline=1.0, **extra)


def test_pace_from_the_servers_timings_and_from_the_calls_time():
    pace = Pace()
    assert pace.expect("k", 100, 10) is None
    timings = {"prompt_ms": 1000, "prompt_n": 100, "predicted_ms": 2000, "predicted_n": 10}
    pace.observe("k", 100, 10, 3.0, timings)
    assert pace.expect("k", 200, 20) == pytest.approx(2.0 + 4.0)
    untimed = Pace()
    untimed.observe("k", 100, 25, 2.0)  # 100 + 4 x 25 weighted tokens in 2 s
    assert untimed.expect("k", 100, 25) == pytest.approx(2.0)


def test_the_deadline_grows_with_the_pace_up_to_its_cap():
    client = LLMClient({})
    slow = tier("http://x/v1")
    assert client.deadline_for(slow, 100, 10) == 1.0  # nothing measured yet
    client.pace.observe(("http://x/v1", "m"), 100, 10, 1.0)
    assert 1.0 < client.deadline_for(slow, 200, 10) <= 4.0
    client.pace.observe(("http://x/v1", "m"), 10, 1, 100.0)
    assert client.deadline_for(slow, 200, 10) == 4.0  # capped
    assert client.deadline_for(tier("http://x/v1", pace_margin=0), 200, 10) == 1.0


@pytest.mark.parametrize("margin, answered", [(3.0, True), (0.0, False)])
def test_a_slowing_endpoint_is_waited_for_when_its_pace_says_so(margin, answered):
    delays = iter([0.6, 1.5])
    with ScriptedLLM(["Aye."], delay=lambda body: next(delays)) as llm:
        client = LLMClient({"voice": tier(llm.base_url, pace_margin=margin)})
        client.chat("voice", [{"role": "user", "content": "hi"}], feature="conversation")
        if answered:
            assert client.chat("voice", [{"role": "user", "content": "hi"}], feature="x").text
        else:
            with pytest.raises(LLMError, match="deadline"):
                client.chat("voice", [{"role": "user", "content": "hi"}], feature="x")
