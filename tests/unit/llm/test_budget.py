"""The daily token ledger: reservations are atomic and spend never goes down (issue 17)."""

import json
import threading

import httpx
import pytest

from omniira_evennia.conf import TierSettings, build_settings
from omniira_evennia.llm.client import (
    LLMBudgetExceeded,
    LLMClient,
    LLMError,
    LLMPlayerShareExceeded,
)
from omniira_evennia.llm.guards import Budget, OverBudget, OverPlayerShare
from omniira_evennia.runtime import health
from omniira_evennia.testing.fakes import ScriptedLLM

MESSAGES = [{"role": "user", "content": "hi"}]


def test_concurrent_reservations_with_one_token_left_let_only_one_through():
    budget = Budget({"voice": TierSettings(daily_tokens=100)})
    budget.record("voice", 99)
    barrier = threading.Barrier(8)
    taken, refused = [], []

    def call():
        barrier.wait()
        try:
            taken.append(budget.reserve("voice", estimate=50))
        except OverBudget as err:
            refused.append(str(err))

    threads = [threading.Thread(target=call) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(taken) == 1 and len(refused) == 7
    assert "daily token budget of tier voice spent" in refused[0]
    budget.settle(taken[0], 30)
    assert budget.spent("voice") == 129 and budget.reserved("voice") == 0
    with pytest.raises(OverBudget):
        budget.reserve("voice")


def test_a_settled_reservation_releases_what_it_held():
    budget = Budget({"voice": TierSettings(daily_tokens=100, npc_daily_tokens=40)})
    held = budget.reserve("voice", npc_id=7, estimate=40)
    with pytest.raises(OverBudget, match="for this NPC"):
        budget.reserve("voice", npc_id=7)
    budget.reserve("voice", npc_id=8)  # another NPC still may
    budget.settle(held, 10)
    assert budget.spent("voice", 7) == 10 and budget.reserved("voice", 7) == 0
    budget.reserve("voice", npc_id=7)
    with pytest.raises(ValueError):
        budget.settle(held, 10)  # twice


@pytest.mark.parametrize("tokens", [-1, -1000, 1.5, "3", True])
def test_a_negative_or_odd_token_count_is_rejected(tokens):
    budget = Budget({"voice": TierSettings(daily_tokens=100)})
    budget.record("voice", 60)
    with pytest.raises(ValueError):
        budget.record("voice", tokens)
    with pytest.raises(ValueError):
        budget.settle(budget.reserve("voice"), tokens)
    with pytest.raises(ValueError):
        budget.seed("2026-01-01", "voice", tokens)
    assert budget.spent("voice") == 60


def test_merging_a_seed_keeps_the_larger_count_and_never_double_counts():
    loaded = []

    def loader(day):
        loaded.append(day)
        return [("voice", None, 70), ("voice", 3, 20)]

    clock = [1_000_000.0]
    budget = Budget({"voice": TierSettings()}, clock=lambda: clock[0], loader=loader)
    assert budget.sync() and budget.spent("voice") == 70 and budget.spent("voice", 3) == 20
    assert not budget.sync()  # within a minute: not loaded again
    budget.record("voice", 50, npc_id=3)  # this process spent more than the rows show yet
    clock[0] += 61
    assert budget.sync() and budget.spent("voice") == 120 and budget.spent("voice", 3) == 70
    assert len(loaded) == 2


def transport(prompt_tokens, completion_tokens, delay=None):
    def handler(request):
        body = {
            "choices": [{"message": {"content": "Aye."}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        }
        return httpx.Response(200, content=json.dumps(body).encode())

    return httpx.MockTransport(handler)


def test_a_server_reporting_negative_tokens_cannot_lower_the_spend():
    client = LLMClient(
        {"voice": TierSettings(base_url="http://llm.test/v1", daily_tokens=1000, max_tokens=50)},
        transport=transport(-900, -100),
    )
    client.budget.record("voice", 500)
    with pytest.raises(LLMError, match="negative token count"):
        client.chat("voice", MESSAGES, feature="conversation")
    # charged what was held for it (the prompt and max_tokens), not lowered by 1000
    assert client.budget.spent("voice") == 550 and client.budget.reserved("voice") == 0


def test_the_client_settles_the_real_count_and_refuses_at_the_budget():
    client = LLMClient(
        {"voice": TierSettings(base_url="http://llm.test/v1", daily_tokens=100, max_tokens=50)},
        transport=transport(60, 40),
    )
    client.chat("voice", MESSAGES, feature="conversation")
    assert client.budget.spent("voice") == 100 and client.budget.reserved("voice") == 0
    with pytest.raises(LLMBudgetExceeded):
        client.chat("voice", MESSAGES, feature="conversation")


def test_one_player_spends_their_share_of_an_npc_and_the_others_still_talk():
    # Issue #26, point 8: before the share, player 1 alone took all 100 of the NPC's tokens.
    with ScriptedLLM(["x" * 80]) as llm:  # 20 tokens a reply; the prompt "hi" counts 0
        tier = TierSettings(
            base_url=llm.base_url, model="m", timeout=5, max_tokens=1, npc_daily_tokens=100
        )
        client = LLMClient({"voice": tier}, budget=Budget({"voice": tier}, player_share=0.25))

        def talk(player):
            try:
                client.chat("voice", MESSAGES, feature="conversation", npc_id=7, speaker_id=player)
                return "answered"
            except LLMPlayerShareExceeded:
                return "tired of them"
            except LLMBudgetExceeded:
                return "NPC spent"

        outcomes = {player: [talk(player) for _ in range(3)] for player in (1, 2)}
        outcomes[3] = [talk(3), talk(3)]
        outcomes[4] = [talk(4)]
    # A share of 25 tokens: the second call (held 20 < 25) goes, and may overshoot by one call.
    assert outcomes[1] == outcomes[2] == ["answered", "answered", "tired of them"]
    # The NPC's own 100 still hold for everyone: player 3 takes the last 20, then all wait.
    assert outcomes[3] == ["answered", "NPC spent"] and outcomes[4] == ["NPC spent"]
    assert len(llm.requests) == 5
    budget = client.budget
    assert budget.spent("voice", 7) == 100 and budget.spent("voice") == 100
    assert budget.spent("voice", 7, 1) == budget.spent("voice", 7, 2) == 40
    assert budget.reserved("voice", 7, 1) == 0
    assert health.get("player_share_refused_conversation") == 2


def test_a_share_is_per_npc_and_none_without_an_npc_budget_or_at_one():
    tiers = {"voice": TierSettings(npc_daily_tokens=100), "ambient": TierSettings()}
    budget = Budget(tiers, player_share=0.1)
    assert budget.share_of(tiers["voice"]) == 10 and budget.share_of(tiers["ambient"]) is None
    budget.settle(budget.reserve("voice", npc_id=7, speaker_id=1), 10)
    with pytest.raises(OverPlayerShare, match="share"):
        budget.reserve("voice", npc_id=7, speaker_id=1)
    assert budget.share_spent("voice", 7, 1) and not budget.share_spent("voice", 8, 1)
    budget.reserve("voice", npc_id=8, speaker_id=1)  # another NPC: another share
    budget.reserve("voice", npc_id=7)  # a call for no player (a review, gossip) is not shared
    assert not Budget(tiers, player_share=1.0).share_spent("voice", 7, 1)
    assert build_settings({}, environ={}).PLAYER_SHARE_OF_NPC_BUDGET == 0.25


def test_merging_a_seed_keeps_each_players_spend():
    budget = Budget({"voice": TierSettings(npc_daily_tokens=100)}, player_share=0.25)
    rows = [("voice", None, 60), ("voice", 7, 60), ("voice", 7, 1, 30), ("voice", 7, 2, 5)]
    budget.merge("2026-01-01", rows)
    budget.clock = lambda: 1767268800.0  # 2026-01-01 12:00 UTC
    assert budget.spent("voice", 7, 1) == 30 and budget.spent("voice", 7, 2) == 5
    assert budget.share_spent("voice", 7, 1) and not budget.share_spent("voice", 7, 2)
    budget.merge("2026-01-01", [("voice", 7, 1, 10)])  # an older count never lowers spend
    assert budget.spent("voice", 7, 1) == 30
