"""Deterministic helpers for tests (never used by the package itself)."""

import hashlib
import re

import numpy as np


class HashingEmbedder:
    """Bag-of-words hashed into 384 dims: same words, same direction. Deterministic and instant."""

    dim = 384

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                bucket = int(hashlib.md5(word.encode()).hexdigest(), 16) % self.dim
                out[row, bucket] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


class BrokenEmbedder:
    dim = 384

    def embed(self, texts):
        raise RuntimeError("embedding model unavailable")
