"""
"Why not?" (issue #27, point 4): for a memory that was not chosen, the stage where it fell.
One test per stage, on hand-made vectors (see test_fusion.World), through the one retrieval
path (`memory.selection`).
"""

from omniira_evennia.conf import build_settings
from omniira_evennia.memory.fusion import LexicalHits
from omniira_evennia.memory.selection import STAGES, select_for_line, why_not
from tests.support.retrieval_world import OTHER, PLAYER, World

NOW = 1_000_000.0
HOUR = 3600.0


def settings(**raw):
    return build_settings({"RECENCY_WINDOW_HOURS": 0, **raw}, {})


def fall(world, target, lexical=None, conf=None, subject=PLAYER, now=NOW):
    conf = conf or settings()
    index = world.index()
    lexical = lexical if lexical is not None else LexicalHits(memories=[])
    explain: dict = {}
    chosen = [
        r.id
        for r in select_for_line(
            index, world.query, lexical, subject, conf, now=now, explain=explain
        )
    ]
    return why_not(
        index, target, world.query, lexical, subject, conf, now=now, explain=explain, chosen=chosen
    )


def crowd(world, count=30, sim=0.9):
    """Old, close memories that fill every slot (learned long before the targets)."""
    for i in range(count):
        world.add(f"close_{i}", sim=sim, learned_at=i)


def background(world, count=100):
    """Older memories about nothing the line says: the bulk of a pair's memories, which the
    centred embedding lane measures everything against (issue #27)."""
    for i in range(count):
        world.add(f"chatter_{i}", sim=0.0, learned_at=-1000 + i)


def test_a_chosen_memory_says_so():
    world = World()
    target = world.add("blue_glass", sim=0.9, learned_at=NOW - 10)
    assert fall(world, target)["stage"] == "chosen"


def test_a_forgotten_memory_is_not_found():
    world = World()
    world.add("blue_glass", sim=0.9)
    assert fall(world, 999)["stage"] == "not_found"


def test_a_memory_about_someone_else():
    world = World()
    world.add("mine", sim=0.9)
    target = world.add("theirs", sim=0.9, subject=OTHER)
    result = fall(world, target)
    assert result["stage"] == "other_subject" and result["subject_id"] == OTHER


def test_an_expired_memory():
    world = World()
    target = world.add("festival", sim=0.9, expires_at=NOW - 1)
    assert fall(world, target)["stage"] == "expired"


def test_a_suspect_memory_when_suspects_are_excluded():
    world = World()
    world.add("fine", sim=0.5)
    target = world.add("trick", sim=0.9, suspect=True)
    conf = settings(SUSPECT_MEMORIES="exclude")
    assert fall(world, target, conf=conf)["stage"] == "suspect_excluded"


def test_outside_the_recency_window():
    world = World()
    crowd(world, 25)
    target = world.add("said_yesterday", sim=0.1, learned_at=NOW - 30 * HOUR)
    result = fall(world, target, conf=settings(RECENCY_WINDOW_HOURS=6))
    assert result["stage"] == "outside_recency_window"
    assert result["recency_rank"] == 1 and result["window_hours"] == 6


def test_within_neither_lanes_depth():
    world = World()
    background(world)
    crowd(world, 60, sim=0.95)
    target = world.add("faint", sim=0.9, learned_at=1.5)  # above the floor, below 60 others
    result = fall(world, target, conf=settings(LEXICAL_DEPTH=50))
    assert result["stage"] == "not_in_lanes"
    # 60 close ones, 8 of them the newest (the recency lane): 52 ahead of it in its lane.
    assert result["dense_rank"] == 53 and result["lexical_rank"] is None


def test_under_the_similarity_floor():
    world = World()
    crowd(world, 25)
    target = world.add("unrelated", sim=0.1, learned_at=1.5)
    result = fall(world, target)
    assert result["stage"] == "under_similarity_floor"
    assert result["cosine"] <= result["floor"]


def test_outranked_at_fusion():
    world = World()
    background(world)
    crowd(world, 30, sim=0.9)
    target = world.add("weaker", sim=0.6, learned_at=1.5)
    result = fall(world, target)
    assert result["stage"] == "outranked"
    assert result["score"] < result["last_taken"]
    assert result["dense_rank"] == 23  # 30 close ones, less the 8 newest (the recency lane)


def test_the_same_key_taken_instead():
    world = World()
    world.add("trade", sim=0.9, learned_at=NOW - 5)
    target = world.add("trade", sim=0.8, learned_at=NOW - 10)
    assert fall(world, target)["stage"] == "same_key"


def test_a_near_duplicate_of_a_chosen_memory():
    world = World()
    background(world, 40)
    target = world.add("greeting", sim=0.8, learned_at=-5000)
    again = world.add("greeting_again", sim=0.8, learned_at=-5001)
    world.vectors[again - 1] = world.vectors[target - 1]  # the same words, said again
    result = fall(world, target)
    # Equal scores go to the higher id, so the copy is taken and the target is its duplicate.
    assert result["stage"] == "near_duplicate" and result["duplicate_of"] == again


def test_the_floor_is_on_the_centred_cosine_when_the_lane_is_centred():
    world = World()
    crowd(world, 25)
    target = world.add("like_the_rest", sim=0.5, learned_at=1.5)  # close, but less than most
    result = fall(world, target)
    assert result["stage"] == "under_similarity_floor"
    assert result["cosine"] > result["floor"] >= result["centred"]


def test_cut_by_the_prompt_budget():
    world = World()
    for i in range(5):
        world.add(f"long_{i}", sim=0.9, value="x" * 300, learned_at=NOW - i)
    target = world.add("last", sim=0.85, value="y" * 300, learned_at=NOW - 50)
    result = fall(world, target, conf=settings(MEMORY_PROMPT_CHARS=1000))
    assert result["stage"] == "cut_by_budget"


def test_a_full_text_hit_is_reported_with_its_rank():
    world = World()
    crowd(world, 30, sim=0.9)
    target = world.add("rare_word", sim=0.2, learned_at=1.5)
    lexical = LexicalHits(memories=[target], query="quinny")
    result = fall(world, target, lexical=lexical)
    assert result["lexical_rank"] == 1 and result["lexical_searched"] == "quinny"
    assert result["stage"] in ("outranked", "chosen")


def test_every_stage_is_tested_here():
    tested = {
        "not_found",
        "other_subject",
        "expired",
        "suspect_excluded",
        "outside_recency_window",
        "not_in_lanes",
        "under_similarity_floor",
        "outranked",
        "same_key",
        "near_duplicate",
        "cut_by_budget",
        "chosen",
    }
    assert set(STAGES) == tested
