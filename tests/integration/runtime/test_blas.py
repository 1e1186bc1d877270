"""numpy's BLAS runs on BLAS_THREADS threads (default 1) once the app is ready (runtime/blas.py)."""

import numpy as np
from threadpoolctl import threadpool_info

from omniira_evennia.runtime.blas import limit_blas_threads


def _blas_threads() -> set[int]:
    """numpy's own BLAS (a library loaded later, e.g. scipy's by sentence-transformers, is
    another one, which the scorer does not use)."""
    return {
        info["num_threads"]
        for info in threadpool_info()
        if info["user_api"] == "blas" and "numpy" in info["filepath"]
    }


def test_the_ready_app_runs_numpys_blas_on_one_thread(db):
    # django.setup() ran apps.ready with the default BLAS_THREADS
    assert _blas_threads() == {1}


def test_a_game_may_choose_more_threads_and_still_get_the_same_product():
    matrix = np.random.default_rng(7).standard_normal((2000, 384)).astype(np.float32)
    query = matrix[3]
    one = matrix @ query
    try:
        libraries = limit_blas_threads(2)
        assert libraries and _blas_threads() == {2}
        assert np.allclose(matrix @ query, one, rtol=1e-5)
    finally:
        limit_blas_threads(1)
    assert _blas_threads() == {1}


def test_zero_leaves_the_library_alone():
    assert limit_blas_threads(0) == [] and _blas_threads() == {1}
