"""bench/guard_replay.py: stored first replies replayed through today's voice guard."""

import json

from bench.guard_replay import MENDED, replay


def _reply(said, raw, reply=None, phase="tell"):
    return {
        "scenario": "s1-maren",
        "day": 1,
        "npc": "Maren",
        "speaker": "Ada",
        "phase": phase,
        "said": said,
        "raw": raw,
        "reply": reply or raw,
    }


def test_a_handed_back_line_is_counted_and_an_answer_is_kept(tmp_path):
    results = tmp_path / "dialogue_eval_x.json"
    replies = [
        _reply("My horse is called Thistle.", "Your horse is called Thistle."),
        _reply("What do you pour?", "Cider and a dark ale, both two copper.", phase="trade"),
        _reply("Good night, Maren!", "Goodnight, Ada!", phase="goodbye"),
    ]
    results.write_text(json.dumps({"record": {"replies": replies}}))
    total, counts, lines = replay([str(results)])
    assert total == 3
    assert counts["kept"] == 2
    # Their line given back, and told back to them as theirs (conversation/narration.py).
    slip = "slipped: restated, tells_them_their_own"
    assert counts[slip] == 1
    assert lines[slip] == [("tell", "My horse is called Thistle.", "Your horse is called Thistle.")]
    # Told something, the slip is mended where it stands rather than asked again.
    assert counts[MENDED] == 1
