"""
Typed settings for omniira-evennia.

Everything is read from one dict in the game's settings file, merged over the defaults below:

    OMNIIRA = {
        "TIERS": {"voice": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini"}},
        "THINKING_DELAY": 2.0,
    }

Environment variables override the LLM endpoint without editing settings:
`OMNIIRA_LLM_BASE_URL`, `OMNIIRA_LLM_MODEL`, `OMNIIRA_LLM_API_KEY` apply to every tier, and
`OMNIIRA_<TIER>_BASE_URL` / `_MODEL` / `_API_KEY` (e.g. `OMNIIRA_VOICE_MODEL`) to one tier.
Per-tier variables win over the all-tier ones, which win over the settings file.
`OMNIIRA_LOCAL_BASE_URL` (and `OMNIIRA_LOCAL_MODEL_NAME`), set by the demo's offline model
launcher, fill in only the tiers that still have no endpoint after all of that.

`get_settings()` validates the result with pydantic and caches it; the cache is cleared when
Django's `setting_changed` fires (tests using `override_settings`) or by `reset_settings()`.
The raw dict is Django's `settings.OMNIIRA`, read through the source the app's `ready` sets
(`read_settings_from`, apps.py): this module imports no Django, so the plain modules that read
settings stay plain; before `ready` (a script without Django) the defaults apply.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

TIER_NAMES = ("voice", "reasoning", "ambient")

DEFAULT_FALLBACK_LINES = [
    '{name} opens their mouth, then shakes their head. "Forgive me, my thoughts wandered. '
    'Say that again?"',
    '{name} frowns, distracted by something only they can see. "Hm? Give me a moment."',
]

# Things no one in a town of carts and candles speaks of: "I need to get to the hospital to help
# him." (held-out seed 71993), "You can visit the museum, go to the art gallery" (issue #24). A
# game set in another age sets OUT_OF_WORLD_WORDS to its own list, or to [].
DEFAULT_OUT_OF_WORLD_WORDS = [
    *"hospital museum gallery police policeman cinema movie television telephone phone".split(),
    *"internet computer email car cars bus taxi airport supermarket mall pharmacy clinic".split(),
    *"ambulance electricity dollars euros laptop smartphone website online".split(),
    "credit card",
    # "You can ask the market for the latest weather reports." (held-out seed 71993)
    "weather report",
    "weather reports",
    "forecast",
]


class TierSettings(BaseModel):
    """One LLM endpoint speaking the OpenAI chat-completions API."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    model: str = "default"
    api_key: str | None = None
    # Seconds one network wait may take (connect, or a read), and the total deadline of a call
    # (connect, headers and the whole body, the one retry included; None: `timeout`), and the
    # largest reply accepted in bytes: a server dripping bytes or sending megabytes is cut off
    # and the call fails (a conversation falls back to an in-character line).
    timeout: float = Field(60.0, gt=0)
    deadline: float | None = Field(None, gt=0)
    max_response_bytes: int = Field(256 * 1024, gt=0)
    # The deadline follows the endpoint's measured pace (llm/client.Pace): a call gets
    # `pace_margin` times what a call its size has been taking when that is longer than
    # `deadline`, never more than `pace_cap` times `deadline` (0: a fixed deadline).
    pace_margin: float = Field(3.0, ge=0)
    pace_cap: float = Field(4.0, ge=1)
    max_tokens: int = Field(300, gt=0)
    temperature: float = Field(0.8, ge=0, le=2)
    # A voice reply that slipped is asked for once more, unless its first try already took
    # longer than this (seconds; None: always): then it is mended in place (conversation/
    # guard.repaired), so a player on a slow or busy machine does not wait for a second try.
    retry_within: float | None = Field(None, gt=0)
    # USD per million tokens, for the usage records' cost column.
    price_in_per_mtok: float = Field(0.0, ge=0)
    price_out_per_mtok: float = Field(0.0, ge=0)
    # How to ask for JSON: "json_schema" (OpenAI structured output, llama.cpp, vLLM),
    # "json_object" (JSON mode only) or "none" (prompt only, validated and repaired once).
    structured_output: Literal["json_schema", "json_object", "none"] = "json_schema"
    # How a voice reply carries the NPC's notes: "tags" (inline [[REMEMBER:...]] tags, for
    # large models) or "json" (a structured turn held to a schema: the spoken line and the
    # notes as fields; see conversation/tags.StructuredTurn) or "speech" (a lean prompt for the
    # spoken line only, for small local models: notes come from the conversation-end review).
    turn_format: Literal["tags", "json", "speech"] = "tags"
    # Budgets (None = unlimited): tokens per UTC day for the tier, and per NPC on the tier;
    # requests per minute on the tier.
    daily_tokens: int | None = Field(None, ge=0)
    npc_daily_tokens: int | None = Field(None, ge=0)
    requests_per_minute: int | None = Field(None, ge=0)

    @property
    def configured(self) -> bool:
        return bool(self.base_url)

    @property
    def total_deadline(self) -> float:
        return self.deadline if self.deadline is not None else self.timeout


class OmniiraSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    TIERS: dict[str, TierSettings] = Field(default_factory=dict)

    # Retrieval (paper appendix C).
    RECENCY_SLOTS: int = Field(8, ge=0)
    SIMILARITY_SLOTS: int = Field(12, ge=0)
    SIMILARITY_FLOOR: float = Field(0.25, ge=-1, le=1)
    HEARSAY_WEIGHT: float = Field(0.8, gt=0)
    FEELING_WEIGHT: float = Field(1.1, gt=0)
    REFLECTION_SLOTS: int = Field(3, ge=1)
    # "fused": the full-text lane (SQLite FTS5 / PostgreSQL full-text) and the embedding lane
    # fused by reciprocal rank, then the paper's multipliers, recency lane and order (issue
    # #11); the default because it finds more of the memories a question needs (see
    # docs/benchmarks.md). "paper": the paper's similarity-only scorer (appendix C).
    RETRIEVAL_MODE: Literal["paper", "fused"] = "fused"
    RRF_K: float = Field(60.0, gt=0)  # reciprocal rank fusion constant
    LEXICAL_DEPTH: int = Field(50, ge=1)  # ranks taken from each lane in fused mode
    # Issue #18 (docs/benchmarks.md, "Long conversations"). PAIR_QUERY: the full-text query of
    # a line between an NPC and a speaker leaves out the two's names and aliases, and words in
    # more than PAIR_COMMON_SHARE of that pair's memories (0: names only).
    PAIR_QUERY: bool = True
    PAIR_COMMON_SHARE: float = Field(0.05, ge=0, le=1)
    LEXICAL_WEIGHT: float = Field(1.0, gt=0)  # the lanes' weights in rank fusion
    DENSE_WEIGHT: float = Field(1.0, gt=0)
    # The recency lane holds the RECENCY_SLOTS newest memories learned in the last
    # RECENCY_WINDOW_HOURS (wall-clock) only, and slots it leaves free go to the question; 0:
    # always the RECENCY_SLOTS newest, whenever learned, as in the paper.
    RECENCY_WINDOW_HOURS: float = Field(6.0, ge=0)
    # Issue #27 (docs/benchmarks.md, "Long conversations"), fused mode only. CENTRED_DENSE: the
    # embedding lane ranks by cosine after moving the line and the memories by the mean of the
    # speaker's memories (what the pair always says is taken out), with CENTRED_FLOOR as its
    # floor on that cosine (SIMILARITY_FLOOR stays the paper scorer's). DUPLICATE_COSINE: a
    # memory at least this close to one already in the prompt takes no slot (0: off).
    CENTRED_DENSE: bool = True
    CENTRED_FLOOR: float = Field(0.1, ge=-1, le=1)
    DUPLICATE_COSINE: float = Field(0.95, ge=0, le=1)
    DIARY_SLOTS: int = Field(2, ge=0)
    # Characters of memory text a prompt may carry (0: every memory retrieval chose): the
    # recency lane first, then the best by score while they fit, shown oldest first.
    MEMORY_PROMPT_CHARS: int = Field(0, ge=0)

    # What NPCs know about the world (issue #25, omniira_evennia/knowledge/). A turn shows at
    # most KNOWLEDGE_SLOTS facts in KNOWLEDGE_PROMPT_CHARS characters (0: no limit), ranked
    # like memories (meaning above KNOWLEDGE_FLOOR, full text, the categories a line asks
    # about; facts of KNOWLEDGE_STANDING_IMPORTANCE and up always ride along). A line within
    # KNOWLEDGE_GUARD_COSINE in meaning of a guarded topic's (0: words only) is about it: a
    # won't-discuss topic is met with its reply (or KNOWLEDGE_WONT_DISCUSS_LINE), no LLM call.
    # A question about the world that nothing known answers (no fact within
    # KNOWLEDGE_ANSWER_COSINE) is answered with KNOWLEDGE_UNKNOWN_LINE when the reply does
    # not admit it ("": the prompt's note only). {speaker} and {name} are filled in.
    KNOWLEDGE_SLOTS: int = Field(6, ge=0)
    KNOWLEDGE_PROMPT_CHARS: int = Field(800, ge=0)
    # The floor for a statement, KNOWLEDGE_QUESTION_FLOOR for a question. On the tuning half
    # (seed 52817) a player's statement brings 0.15 facts on average at 0.35 (0.75 at 0.25),
    # which a small model recites ("the north road climbs to Vellmoor" to a line about a
    # cloak); a question about the NPC's trade or the town comes at 0.17-0.35 to the facts
    # that answer it, and a question not about the world brings 0.43 at 0.25.
    KNOWLEDGE_FLOOR: float = Field(0.35, ge=-1, le=1)
    KNOWLEDGE_QUESTION_FLOOR: float = Field(0.25, ge=-1, le=1)
    KNOWLEDGE_STANDING_IMPORTANCE: int = Field(9, ge=1, le=11)
    KNOWLEDGE_GUARD_COSINE: float = Field(0.4, ge=0, le=1)
    KNOWLEDGE_ANSWER_COSINE: float = Field(0.45, ge=-1, le=1)
    KNOWLEDGE_WONT_DISCUSS_LINE: str = "I'd rather not talk about that, {speaker}."
    KNOWLEDGE_UNKNOWN_LINE: str = "I couldn't tell you that, {speaker}. It's nothing I've heard of."
    # Gossip passes on what is not guarded (seed 004): facts of KNOWLEDGE_GOSSIP_IMPORTANCE and
    # up, KNOWLEDGE_GOSSIP_PER_TALK per NPC and talk, confidence falling by
    # KNOWLEDGE_CONFIDENCE_DECAY per hop, never below KNOWLEDGE_MIN_CONFIDENCE. What an NPC
    # saw or heard is kept to KNOWLEDGE_PER_NPC facts (a builder's are never dropped); a
    # witnessed world event is KNOWLEDGE_EVENT_IMPORTANCE unless game code says otherwise.
    KNOWLEDGE_GOSSIP_IMPORTANCE: int = Field(6, ge=1, le=11)
    KNOWLEDGE_GOSSIP_PER_TALK: int = Field(1, ge=0)
    KNOWLEDGE_CONFIDENCE_DECAY: float = Field(0.1, ge=0, le=1)
    KNOWLEDGE_MIN_CONFIDENCE: float = Field(0.2, ge=0, le=1)
    KNOWLEDGE_PER_NPC: int = Field(200, ge=1)
    KNOWLEDGE_EVENT_IMPORTANCE: int = Field(6, ge=1, le=10)
    # News a player tells about someone else ("Harlan the miller broke his leg") is kept as
    # knowledge the NPC was told, for KNOWLEDGE_NEWS_DAYS game days (0: not kept), at most
    # KNOWLEDGE_NEWS_PER_TELLER items per player and NPC; gossip passes it on (issue #24).
    KNOWLEDGE_NEWS_DAYS: int = Field(7, ge=0)
    KNOWLEDGE_NEWS_PER_TELLER: int = Field(5, ge=1)

    # Conversation.
    HISTORY_TURNS: int = Field(8, ge=0)
    # The verbatim lane: the speaker's own words from earlier conversations, quoted in the
    # prompt ("Ada said, 3 days ago: ..."), at most VERBATIM_SLOTS lines (0 turns it off),
    # chosen by meaning above VERBATIM_FLOOR fused with rare shared words.
    VERBATIM_SLOTS: int = Field(4, ge=0)
    VERBATIM_FLOOR: float = Field(0.3, ge=-1, le=1)
    CONVERSATION_IDLE_SECONDS: float = Field(600.0, gt=0)
    THINKING_DELAY: float = Field(2.0, ge=0)
    THINKING_MESSAGE: str = "{name} pauses, thinking."
    FALLBACK_LINES: list[str] = Field(default_factory=lambda: list(DEFAULT_FALLBACK_LINES))
    MAX_MESSAGE_CHARS: int = Field(1000, gt=0)
    # A reply's sentence naming one of these, when neither the player's line nor what the NPC
    # knows does, is asked again and, past mending, cut (conversation/registers.py).
    OUT_OF_WORLD_WORDS: list[str] = Field(
        default_factory=lambda: list(DEFAULT_OUT_OF_WORLD_WORDS), max_length=500
    )
    # An in-world cue to the player when the NPC has finished reviewing a conversation that
    # ended (its extraction wrote what it kept), shown only if the player is still in the
    # NPC's room, {npc} being the NPC's name; "" (the default): no cue. Builders see every
    # review with `@memory reviews <npc>`.
    REVIEW_CUE: str = ""

    # Social memory.
    TICK_SECONDS: float = Field(15.0, gt=0)  # lifecycle checks and extraction queue
    EXTRACTIONS_PER_TICK: int = Field(3, ge=0)
    GOSSIP_INTERVAL_SECONDS: float = Field(300.0, ge=0)  # 0 turns automatic gossip off
    GOSSIP_PAIRS_PER_ROUND: int = Field(1, ge=0)
    NPC_CONVERSATION_LINES: int = Field(4, ge=2, le=12)
    GOSSIP_MAX_HOPS: int = Field(4, ge=1)

    # Extensions that can be turned off (the testbed's ablations, docs/testbed.md): an NPC's
    # own tags in its replies (stripped and ignored when off), headline NPCs' daily
    # reflections, and the nightly diaries (autobiography).
    SELF_TAGGING: bool = True
    REFLECTIONS: bool = True
    DIARIES: bool = True

    # Background work that fails (a review, a diary, a reflection: a deadline, invalid JSON,
    # a dead endpoint) is tried again, RETRY_ATTEMPTS times in all, waiting RETRY_BASE_SECONDS
    # after the first failure and twice as long after each next one (at most
    # RETRY_MAX_SECONDS), across restarts; `@memory reviews <npc> = retry` and `@memory
    # rollover retry` run what failed for good again.
    RETRY_ATTEMPTS: int = Field(5, ge=1)
    RETRY_BASE_SECONDS: float = Field(60.0, ge=0)
    RETRY_MAX_SECONDS: float = Field(3600.0, ge=0)

    # Daily rhythm.
    REFLECTION_THRESHOLD: int = Field(4, ge=1)  # new memories about a target before reflecting
    ROLLOVER_CONCURRENCY: int = Field(2, ge=1)  # rollover LLM jobs in flight at once
    MEMORY_CAP_PER_SUBJECT: int = Field(200, ge=1)
    # Beliefs one NPC keeps about one target; beyond it the least important, then the oldest,
    # go at the rollover (a prompt shows REFLECTION_SLOTS of them: newest and nearest).
    BELIEFS_PER_TARGET: int = Field(30, ge=1)
    # A new note about someone that the embedder puts at least this near an older one from the
    # same teller (and whose words allow it: memory/sameness.may_restate) updates that memory
    # instead of adding a copy; measured with the default MiniLM by bench/long_run.py (a
    # restatement's cosine 0.73-0.95, a different fact's at most 0.67 once the words agree).
    # 1 turns the merge by meaning off.
    MEMORY_MERGE_COSINE: float = Field(0.76, gt=0, le=1)
    RETENTION_HALF_LIFE_DAYS: float = Field(30.0, gt=0)

    # The game hour at which day 1 begins (the server's first start), so a new world can wake
    # up in the morning rather than at midnight.
    GAME_START_HOUR: float = Field(0.0, ge=0, lt=24)

    # Daily life: schedules and commitments carried out by a decision tick (no LLM calls).
    # Real seconds between ticks (0: NPCs never move on their own); each tick moves an NPC one
    # exit at most and considers up to DECISION_NPCS_PER_TICK NPCs (the rest on later ticks).
    DECISION_TICK_SECONDS: float = Field(20.0, ge=0)
    DECISION_NPCS_PER_TICK: int = Field(50, ge=1)
    PATH_MAX_ROOMS: int = Field(200, ge=1)  # rooms one path search may explore
    # In game time: set out this long before a promised time, give up this long after it,
    # drop an untimed travel_to after PLAN_EXPIRY_HOURS, keep someone company FOLLOW_HOURS.
    PLAN_LEAD_MINUTES: float = Field(60.0, ge=0)
    PLAN_GRACE_MINUTES: float = Field(60.0, ge=0)
    PLAN_EXPIRY_HOURS: float = Field(24.0, gt=0)
    FOLLOW_HOURS: float = Field(2.0, gt=0)
    # Real seconds between someone leaving and an NPC that promised to go with them following.
    FOLLOW_DELAY_SECONDS: float = Field(1.0, ge=0)

    # Players may ask `recall <npc>` (off by default: it can hurt immersion).
    PLAYER_RECALL: bool = False

    # Safety and failure handling.
    PLAYER_IMPORTANCE_CAP: int = Field(7, ge=1, le=10)  # for memories learned from players
    # Concerns (something on an NPC's mind): kept this many game days, at most this many per
    # NPC; a conversation shows the speaker's own and those no player raised.
    CONCERN_DAYS: int = Field(3, ge=1)
    CONCERNS_PER_NPC: int = Field(10, ge=1)
    SUSPECT_MEMORIES: Literal["untrusted", "exclude"] = "untrusted"
    CIRCUIT_FAILURES: int = Field(5, ge=1)  # consecutive failures that open an endpoint
    CIRCUIT_COOLDOWN_SECONDS: float = Field(30.0, gt=0)
    FALLBACK_TIER: str | None = "ambient"  # conversation over the voice budget tries this
    # Evennia markup in LLM-written text (replies, memories, what @memory shows): "strip"
    # removes links, MXP and colour codes; "colour" keeps colour codes only. Links and MXP
    # never survive (memory/safety.neutralize_markup).
    LLM_MARKUP: Literal["strip", "colour"] = "strip"
    # One player cannot starve everyone: conversation turns one player may start per minute
    # (0: no limit), turns in flight per NPC (0: no limit), each refused with an in-character
    # line to that player only ({npc}: the NPC's name); audit rows of one kind per speaker per
    # minute (the rest are counted in the health counter audit_suppressed; 0: no limit).
    PLAYER_TURNS_PER_MINUTE: int = Field(10, ge=0)
    PLAYER_RATE_MESSAGE: str = '{npc} holds up a hand: "One at a time, love."'
    NPC_QUEUE_LIMIT: int = Field(4, ge=0)
    NPC_BUSY_MESSAGE: str = '{npc} is busy with someone else: "A moment, I\'ll be right with you."'
    # The share of an NPC's daily tokens on a tier (its `npc_daily_tokens`) one player's
    # conversation may spend in a UTC day (1.0: no share), so one player cannot spend the NPC's
    # day for everyone; past it that player's turns with the NPC are refused with this line.
    PLAYER_SHARE_OF_NPC_BUDGET: float = Field(0.25, gt=0, le=1)
    PLAYER_SHARE_MESSAGE: str = (
        '{npc} rubs their temples: "I\'ve no more words for you today, love. Come back tomorrow."'
    )
    AUDIT_ROWS_PER_MINUTE: int = Field(10, ge=0)
    # Retention, applied by the daily rollover (0: keep forever): LLM usage rows and audit rows
    # (erasure records excepted) older than this many real days, conversation lines older than
    # this many game days (not those of conversations still open or awaiting their review).
    KEEP_USAGE_DAYS: int = Field(90, ge=0)
    KEEP_AUDIT_DAYS: int = Field(90, ge=0)
    KEEP_TURNS_GAME_DAYS: int = Field(90, ge=0)
    # Memory held by the per-NPC vector cache (memory/store.MatrixCache, least recently used
    # evicted first; an evicted NPC's memories are read again when next needed).
    VECTOR_CACHE_MB: float = Field(256.0, gt=0)

    # Embeddings (issue #19). EMBEDDER: an alias ("onnx", "sentence-transformers", "openai") or
    # a dotted class path. The default runs all-MiniLM-L6-v2 in float32 on onnxruntime (offline, no
    # torch); "sentence-transformers" needs the [torch] extra and runs EMBEDDING_MODEL (None: the
    # packaged fp32 all-MiniLM-L6-v2); "openai" calls an OpenAI-compatible /v1/embeddings
    # endpoint at EMBEDDING_BASE_URL with the model EMBEDDING_MODEL (environment:
    # OMNIIRA_EMBEDDING_BASE_URL, OMNIIRA_EMBEDDING_API_KEY); EMBEDDING_SEND_DIMENSIONS asks it
    # for 384 floats. EMBEDDING_CACHE_DIR keeps the derived model (None: $OMNIIRA_CACHE_DIR
    # or ~/.cache/omniira-evennia). EMBEDDING_THREADS: threads of one embedding call (the ONNX
    # embedder's pool keeps two at least: a turn's line runs on its own thread). See
    # omniira_evennia/memory/embeddings.py.
    EMBEDDER: str = "omniira_evennia.memory.embeddings.OnnxMiniLMEmbedder"
    EMBEDDING_MODEL: str | None = None
    EMBEDDING_THREADS: int = Field(1, ge=1)
    EMBEDDING_BASE_URL: str | None = None
    EMBEDDING_API_KEY: str | None = None
    EMBEDDING_TIMEOUT: float = Field(10.0, gt=0)
    EMBEDDING_SEND_DIMENSIONS: bool = False
    EMBEDDING_CACHE_DIR: str | None = None

    # Threads for LLM calls and embeddings, so they never run on the reactor: player turns
    # and builder commands in one pool, reviews, gossip, rollover jobs and warm-up in another,
    # so background work never queues in front of a player. WORKER_THREADS is the 0.1 name
    # of INTERACTIVE_THREADS (still honoured when set).
    INTERACTIVE_THREADS: int = Field(4, ge=1)
    BACKGROUND_THREADS: int = Field(2, ge=1)
    # At start, after the embedder, the first blocks of the prompts of at most this many NPCs
    # (prompts.stable_prefix, the same for every turn) are sent once for a one-token reply, so
    # a prompt-caching server (llama.cpp) holds them before the first player speaks; one at a
    # time, each once no reply is on its way (lifecycle.warm_prompts). 0: off
    # (a hosted endpoint would bill the tokens). The offline demo warms its NPCs.
    WARM_PROMPT_NPCS: int = Field(0, ge=0)
    WORKER_THREADS: int | None = Field(None, ge=1)
    # numpy's BLAS threads (runtime/blas.py): the scorer's matrix-vector product gains nothing
    # from more, and idle BLAS threads spin on the cores turns need. 0: the library's default.
    BLAS_THREADS: int = Field(1, ge=0)
    # A database query from a worker thread: "raise" (the test suite), "log" or "off".
    WORKER_ORM_GUARD: Literal["raise", "log", "off"] = "log"

    @field_validator("REVIEW_CUE")
    @classmethod
    def _cue_placeholders(cls, value: str) -> str:
        try:
            value.format(npc="Maren")
        except (KeyError, IndexError, ValueError) as err:
            raise ValueError(f"only {{npc}} may be filled in ({err!r})") from None
        return value

    @property
    def interactive_threads(self) -> int:
        return self.WORKER_THREADS or self.INTERACTIVE_THREADS

    def tier(self, name: str) -> TierSettings:
        return self.TIERS[name]


def _env_overrides(tier: str, environ: dict[str, str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for field_name in ("base_url", "model", "api_key"):
        upper = field_name.upper()
        for var in (f"OMNIIRA_LLM_{upper}", f"OMNIIRA_{tier.upper()}_{upper}"):
            if environ.get(var):
                found[field_name] = environ[var]
    return found


def build_settings(raw: dict[str, Any] | None, environ: dict[str, str] | None = None):
    """Merge a raw OMNIIRA dict with defaults and environment overrides; validate it."""
    raw = dict(raw or {})
    environ = dict(os.environ if environ is None else environ)
    tiers_raw = dict(raw.pop("TIERS", {}) or {})
    tiers: dict[str, dict[str, Any]] = {}
    for name in set(TIER_NAMES) | set(tiers_raw):
        tier = dict(tiers_raw.get(name) or {})
        tier.update(_env_overrides(name, environ))
        if not tier.get("base_url") and environ.get("OMNIIRA_LOCAL_BASE_URL"):
            tier["base_url"] = environ["OMNIIRA_LOCAL_BASE_URL"]
            tier["model"] = environ.get("OMNIIRA_LOCAL_MODEL_NAME", tier.get("model", "local"))
        tiers[name] = tier
    return OmniiraSettings(TIERS=tiers, **raw)


def _no_settings() -> dict | None:
    return None


# For Evennia's auditing contrib (evennia.contrib.utils.auditing), whose sessions log what
# players and builders type: a knowledge secret added with `@memory/secret ... know add <scope>
# = <text>` is masked like a password. A game that audits adds them to its settings:
# `AUDIT_MASKS = [*OMNIIRA_AUDIT_MASKS]` (the contrib README, under Settings).
AUDIT_MASKS = [
    {"@memory/secret": r"^[@\s]*memory/\S*\bsecret\b\S*\s+know\s+add\s+[^=]+=\s*(?P<secret>.+)"},
]


# Where the raw OMNIIRA dict comes from: Django's settings, set by the app's `ready` (apps.py),
# so this module (which plain modules import) imports no Django; until then, the defaults.
_raw_settings = _no_settings


def read_settings_from(source) -> None:
    """Take the raw OMNIIRA dict from `source()` from now on (apps.py: Django's settings)."""
    global _raw_settings
    _raw_settings = source
    reset_settings()


@lru_cache(maxsize=1)
def get_settings() -> OmniiraSettings:
    return build_settings(_raw_settings())


def reset_settings(**kwargs) -> None:
    get_settings.cache_clear()
