"""Vector serialisation for sqlite-vec, exact KNN, and KNN with a binary pre-filter and exact re-scoring.

sqlite-vec's KNN is brute force. Over sign bits (``bit[DIM]``, hamming distance) it is ~10-20x faster than
over float32 (see ../shared/MODELS.md), so for large KBs :func:`knn_binary_rescore` takes
``k * oversample`` hamming candidates and re-scores them with the exact cosine distance.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from pikelocal.store.db import Connection, float_of, int_of, one_int

MAX_K = 4096  # sqlite-vec refuses larger k
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def float32_blob(vector: ArrayLike) -> bytes:
    """A 1-D vector as the little-endian float32 blob sqlite-vec reads natively."""
    v = np.asarray(vector, dtype="<f4")
    if v.ndim != 1:
        raise ValueError(f"expected a 1-D vector, got shape {v.shape}")
    return v.tobytes()


def quantize_int8(vector: ArrayLike) -> NDArray[np.int8]:
    """Scalar quantisation of a unit vector's components ([-1, 1] → [-127, 127])."""
    v = np.asarray(vector, dtype=np.float32)
    q: NDArray[np.int8] = np.clip(np.rint(v * 127.0), -127, 127).astype(np.int8)
    return q


def int8_blob(vector: ArrayLike) -> bytes:
    """An int8 vector as a blob; pass it to SQL as ``vec_int8(?)``."""
    v = np.asarray(vector)
    if v.dtype != np.int8:
        v = quantize_int8(v)
    return v.tobytes()


def bit_blob(vector: ArrayLike) -> bytes:
    """Sign bits (component > 0), packed like ``vec_quantize_binary``; pass to SQL as ``vec_bit(?)``."""
    v = np.asarray(vector, dtype=np.float32)
    if v.shape[-1] % 8:
        raise ValueError(f"bit vectors need a dimension divisible by 8, got {v.shape[-1]}")
    return np.packbits(v > 0, bitorder="little").tobytes()


def _ident(name: str) -> str:
    # Table names cannot be bound as parameters; only our own constant names ever reach here.
    if not _IDENT.fullmatch(name):
        raise ValueError(f"not a table name: {name!r}")
    return name


def knn(conn: Connection, table: str, query: ArrayLike, k: int) -> list[tuple[int, float]]:
    """Exact KNN over a ``float[DIM]`` vec0 table: (rowid, distance), nearest first."""
    if k <= 0:
        return []
    rows = conn.execute(
        f"SELECT rowid, distance FROM {_ident(table)} WHERE embedding MATCH ? AND k = ? ORDER BY distance",
        (float32_blob(query), min(k, MAX_K)),
    ).fetchall()
    return [(int_of(r), float_of(d)) for r, d in rows]


def create_bit_table(conn: Connection, table: str, dim: int) -> None:
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {_ident(table)} USING vec0(embedding bit[{int(dim)}])")


def fill_bit_table(conn: Connection, bit_table: str, float_table: str) -> int:
    """(Re)build the sign-bit copy of ``float_table``; returns the number of rows."""
    with conn:
        conn.execute(f"DELETE FROM {_ident(bit_table)}")
        conn.execute(
            f"INSERT INTO {bit_table}(rowid, embedding) "
            f"SELECT rowid, vec_quantize_binary(embedding) FROM {_ident(float_table)}"
        )
    return one_int(conn, f"SELECT count(*) FROM {bit_table}")


def knn_binary_rescore(
    conn: Connection,
    *,
    bit_table: str,
    float_table: str,
    query: ArrayLike,
    k: int,
    oversample: int = 8,
) -> list[tuple[int, float]]:
    """Hamming KNN for ``k * oversample`` candidates, then exact cosine distance on their float vectors."""
    if k <= 0:
        return []
    q = np.asarray(query, dtype=np.float32)
    candidates = conn.execute(
        f"SELECT rowid FROM {_ident(bit_table)} WHERE embedding MATCH vec_bit(?) AND k = ?",
        (bit_blob(q), min(k * oversample, MAX_K)),
    ).fetchall()
    ids = [int_of(r[0]) for r in candidates]
    return rescore(conn, float_table, q, ids)[:k]


def rescore(conn: Connection, float_table: str, query: ArrayLike, ids: Sequence[int]) -> list[tuple[int, float]]:
    """Exact cosine distances from ``query`` to the float vectors of ``ids``, nearest first."""
    if not ids:
        return []
    # Point lookups by rowid are cheap in vec0; one statement, prepared once, reused per id.
    sql = f"SELECT embedding FROM {_ident(float_table)} WHERE rowid = ?"
    found = [(i, conn.execute(sql, (i,)).fetchone()) for i in ids]
    ids_ok = [i for i, row in found if row is not None]
    if not ids_ok:
        return []
    dim = np.asarray(query).shape[-1]
    mat = np.frombuffer(b"".join(row[0] for _, row in found if row is not None), dtype="<f4").reshape(-1, dim)
    q = np.asarray(query, dtype=np.float32)
    sims = mat @ q / (np.linalg.norm(mat, axis=1) * np.linalg.norm(q) + 1e-12)
    order = np.argsort(-sims, kind="stable")
    return [(ids_ok[j], float(1.0 - sims[j])) for j in order]
