"""A small multi-hop corpus for fact hops (``query.retrieve.hops``): a film's page names its director, whose own page
the question never names, among other directors' pages that share the question's words."""

from __future__ import annotations

from pikelocal.embed.base import Encoder
from pikelocal.store.store import Store

FILM = "Torchy Blane in Panama"
DIRECTOR = "William Clemens"
QUESTION = f"Where was the director of the film {FILM} born?"

CORPUS = {
    "torchy.md": f"# {FILM}\n\n{FILM} is a 1938 American mystery film directed by {DIRECTOR}, the fifth of the"
    " series.\n",
    "clemens.md": f"# {DIRECTOR}\n\n{DIRECTOR} (1905-1980) was an editor at Warner Bros. from 1931; he grew up in"
    " Saginaw, Michigan.\n",
    "mcdonald.md": "# Frank McDonald\n\nFrank McDonald was an American film director, born in Baltimore, who directed"
    " the film Blondes at Work.\n",
    "beaudine.md": "# William Beaudine\n\nWilliam Beaudine was an American film director born in New York City; he"
    " directed the film Torchy Blane in Chinatown.\n",
    "oslo.md": "# Oslo\n\nOslo is the capital of Norway and its largest city.\n",
}

# (file, entities, triples) as the enrichment call would return them
FACTS = [
    ("torchy.md", [FILM, DIRECTOR], [(FILM, "directed by", DIRECTOR)]),
    ("clemens.md", [DIRECTOR, "Saginaw"], [(DIRECTOR, "grew up in", "Saginaw")]),
    ("mcdonald.md", ["Frank McDonald", "Baltimore"], [("Frank McDonald", "born in", "Baltimore")]),
    ("beaudine.md", ["William Beaudine", "New York City"], [("William Beaudine", "born in", "New York City")]),
    ("oslo.md", ["Oslo", "Norway"], [("Oslo", "is the capital of", "Norway")]),
]


def chunk_of(store: Store, name: str) -> int:
    """The one chunk of the corpus file ``name``."""
    doc = next(d for d in store.docs.documents() if d.path.endswith(name))
    chunks = store.chunks.chunks_of(doc.id)
    assert len(chunks) == 1, (name, len(chunks))
    return chunks[0].id


def put_facts(store: Store, encoder: Encoder | None = None) -> dict[str, int]:
    """Store FACTS as the graph of the KB's chunks, with the names' vectors from ``encoder`` (as enrichment stores
    them, encoded as queries) if given; file name -> chunk id."""
    ids = {name: chunk_of(store, name) for name in CORPUS}
    with store.transaction():
        for name, entities, triples in FACTS:
            vectors = encoder.encode(entities, role="query") if encoder is not None else None
            store.graph.put_chunk(ids[name], entities, triples, vectors=vectors)
    return ids
