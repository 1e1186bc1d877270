"""
The embedding column: a BLOB on SQLite, a pgvector `vector(384)` on PostgreSQL.

In Python the value is always what `embeddings.to_blob` makes (384 little-endian float32 as
bytes) or None, whatever the database, so the rest of the code never asks which one it runs
on. On PostgreSQL the same values live in a real vector column, so the database itself can
search them (see `store.nearest_memories` and `store.who_knows`).

A value of the wrong length is refused on write (ValueError) rather than stored corrupt.
"""

from __future__ import annotations

import numpy as np
from django.db import models

EMBEDDING_DIM = 384


def is_postgres(connection) -> bool:
    return connection.vendor == "postgresql"


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form, '[0.1,0.2,...]' (float32 values print exactly with repr)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"


def parse_vector_literal(text: str) -> bytes:
    return np.array(text.strip("[]").split(","), dtype=np.float32).tobytes()


class EmbeddingField(models.BinaryField):
    description = "An embedding vector (BLOB, or pgvector on PostgreSQL)"

    def __init__(self, *args, dimensions: int = EMBEDDING_DIM, **kwargs):
        self.dimensions = dimensions
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        if self.dimensions != EMBEDDING_DIM:
            kwargs["dimensions"] = self.dimensions
        return name, path, args, kwargs

    def db_type(self, connection):
        if is_postgres(connection):
            return f"vector({self.dimensions})"
        return super().db_type(connection)

    def _as_floats(self, value) -> np.ndarray:
        if isinstance(value, (bytes, bytearray, memoryview)):
            vector = np.frombuffer(bytes(value), dtype=np.float32)
        else:
            vector = np.asarray(value, dtype=np.float32).ravel()
        if vector.shape != (self.dimensions,):
            raise ValueError(f"an embedding needs {self.dimensions} floats, got {vector.size}")
        return vector

    def get_db_prep_value(self, value, connection, prepared=False):
        if value is None:
            return None
        vector = self._as_floats(value)
        if is_postgres(connection):
            return vector_literal(vector)
        return super().get_db_prep_value(vector.tobytes(), connection, prepared)

    def from_db_value(self, value, expression, connection):
        if value is None:
            return None
        if isinstance(value, str):  # pgvector's text output
            return parse_vector_literal(value)
        if isinstance(value, np.ndarray):  # a pgvector loader registered by the game
            return value.astype(np.float32).tobytes()
        return bytes(value)

    def to_python(self, value):
        if isinstance(value, str) and value.startswith("["):
            return parse_vector_literal(value)
        return super().to_python(value)
