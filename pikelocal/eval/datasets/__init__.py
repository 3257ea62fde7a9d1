"""Loaders for evaluation sets: BEIR folders, pooled multi-hop QA (HotpotQA, 2Wiki) and LawBench 1-1 law articles.

One module per job; this package re-exports their public names, so ``from pikelocal.eval import datasets as ds``
and ``ds.load_beir(...)`` keep working:

- :mod:`.records`: the records every set is made of (``CorpusDoc``, ``EvalQuery``, ``EvalSet``), ``subset``, ``pooled``
- :mod:`.reading`: reading JSON Lines / JSON list files with one-line errors (also used by ``eval.qa_data``)
- :mod:`.layout`: which layout a path holds
- :mod:`.beir`, :mod:`.multihop`, :mod:`.lawbench`: one loader per kind of set
"""

from __future__ import annotations

from pikelocal.eval.datasets.beir import load_beir
from pikelocal.eval.datasets.lawbench import (
    PRC_PREFIX,
    LawArticle,
    LawQuestions,
    choose_law_files,
    load_law_articles,
    resolve_lawbench_questions,
)
from pikelocal.eval.datasets.layout import detect_layout
from pikelocal.eval.datasets.multihop import MULTIHOP_STEMS, find_multihop, load_multihop
from pikelocal.eval.datasets.records import CorpusDoc, EvalQuery, EvalSet, pooled, subset

__all__ = [
    "MULTIHOP_STEMS",
    "PRC_PREFIX",
    "CorpusDoc",
    "EvalQuery",
    "EvalSet",
    "LawArticle",
    "LawQuestions",
    "choose_law_files",
    "detect_layout",
    "find_multihop",
    "load_beir",
    "load_law_articles",
    "load_multihop",
    "pooled",
    "resolve_lawbench_questions",
    "subset",
]
