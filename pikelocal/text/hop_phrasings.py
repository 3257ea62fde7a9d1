"""How the questions of an encyclopaedic multi-hop benchmark (2WikiMultiHopQA) write their structure, as data: the
relation words ("the director of film X", "paternal grandfather"), the comparisons ("Which film came out first, X or
Y?") and the outer questions of a composition ("Where was {} born?"). ``query/answer/hop_plan.py`` is the engine
that reads a question with these tables; the product's own chains (a clause → the article it cites; a deadline
counted from another event; an amount in two documents) are another table beside this one
(``text/chain_phrasings.py``).

English only. Relations are written in lower case in these questions and titles in title case ("Father Of The
Bride"), so relation words are matched case-sensitively. The patterns are strings, compiled by the engine; a
comparison pattern may name the shared pieces {REL} (a relation word), {NOUN} (a kind of work), {WHEN} (an order
word: first, later …), {AGE} (older, younger) and {SIDES} (", X or Y?").
"""

from __future__ import annotations

from typing import Literal

Want = Literal["name", "date", "place", "nationality", "text"]

# A relation word → the relations it stands for, from the named entity outwards.
COMPOUND_RELATIONS: dict[str, tuple[str, ...]] = {
    "paternal grandfather": ("father", "father"),
    "maternal grandfather": ("mother", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandmother": ("mother", "mother"),
    "father-in-law": ("spouse", "father"),
    "mother-in-law": ("spouse", "mother"),
}
SIMPLE_RELATIONS: tuple[str, ...] = (
    "director", "composer", "producer", "screenwriter", "writer", "performer", "presenter", "creator", "founder",
    "author", "father", "mother", "wife", "husband", "spouse",
)  # fmt: skip
# The kinds of work a question names before a title ("the director of film X").
WORK_NOUNS: tuple[str, ...] = (
    "film", "movie", "song", "album", "show", "series", "band", "book", "novel", "magazine", "company",
)  # fmt: skip
# A plural kind in "Are the movies X and Y from the same country?" → the kind each side is.
PLURAL_NOUNS: dict[str, str] = {"movies": "film", "films": "film", "songs": "song", "albums": "album", "bands": "band"}

# An entity phrase reached through a relation: "the director of (the) (film) X"; "X's wife".
OF_RELATION = r"^(?:the )?(?P<rel>{REL}) of (?:the )?(?:(?P<noun>{NOUN}) )?(?P<rest>.+)$"
POSSESSIVE_RELATION = r"^(?P<rest>.+?)['’]s (?P<rel>{REL})$"

# The comparisons, by the kind of reading each asks for:
# released: "Which film came out first, X or Y?", "Which film was released more recently, X or Y?"
# by_relation: "Which film has the director (who) died earlier, X or Y?", "Which film whose director was born first,
#   X or Y?", "Which film has the director who is older than the other, X or Y?"
# persons: "Who was born first, A or B?", "Who died later, A or B?", "Who is younger, A or B?"
# same: "Are X and Y from the same country?", "Are the movies X and Y, from the same country?", "Do director of film
#   X and director of film Y have the same nationality?", "Are both X and Y of the same nationality?"
COMPARISONS: dict[str, str] = {
    "released": (
        r"^Which (?P<noun>{NOUN}|one) (?:came out|was released|was published|premiered|was made) {WHEN}{SIDES}"
    ),
    "by_relation": (
        r"^Which (?P<noun>{NOUN}) (?:has the|whose|has a) (?P<rel>{REL})(?: who)?"
        r" (?:(?P<verb>died|was born|born|passed away) {WHEN}|(?:is|was) {AGE}){SIDES}"
    ),
    "persons": r"^Who (?:(?P<verb>was born|died|passed away) {WHEN}|(?:is|was) {AGE}){SIDES}",
    "same": (
        r"^(?:Are|Were|Do|Did|Is)(?: both)?(?: the (?P<noun>movies|films|songs|albums|bands|people))? (?P<a>.+?) and"
        r" (?P<b>.+?),?(?: both)? (?:(?:are |were )?(?:from|of) the same|(?:have|had|share) the same)"
        r" (?P<attr>country(?: of origin)?|nationality)\s*\??\s*$"
    ),
}
# The verbs of a comparison that say it is about a death (any other: a birth).
DEATH_VERBS: tuple[str, ...] = ("died", "passed away")

# What "the X of …" asks for in an outer question ("What is the place of birth of …?").
ASKED_ATTRIBUTES = (
    r"(?P<asked>place of birth|place of death|date of birth|date of death|cause of death|nationality|occupation)"
)
# The outer questions of a composition: (pattern with the entity phrase as (?P<e>…) and {ASKED} for the attribute
# words, the question asked of the bridge with {} for its name and {asked} for the attribute, what it asks for);
# None: the bridge itself is the answer ("Who is the paternal grandfather of X?").
OUTER_QUESTIONS: tuple[tuple[str, str | None, Want], ...] = (
    (r"^Where (?:was|is) (?P<e>.+?) born\s*\?\s*$", "Where was {} born?", "place"),
    (r"^Where did (?P<e>.+?) (?:die|pass away)\s*\?\s*$", "Where did {} die?", "place"),
    (r"^When (?:was|is) (?P<e>.+?) born\s*\?\s*$", "When was {} born?", "date"),
    (r"^When did (?P<e>.+?) (?:die|pass away)\s*\?\s*$", "When did {} die?", "date"),
    (r"^(?:What|Where) (?:is|was) the {ASKED} of (?P<e>.+?)\s*\?\s*$", "What is the {asked} of {}?", "text"),
    (r"^What nationality (?:is|was) (?P<e>.+?)\s*\?\s*$", "What nationality is {}?", "nationality"),
    (r"^Where does (?P<e>.+?) work(?: at)?\s*\?\s*$", "Where does {} work?", "text"),
    (r"^Where did (?P<e>.+?) (?:study|graduate from|go to school)\s*\?\s*$", "Where did {} study?", "text"),
    (r"^Why did (?P<e>.+?) die\s*\?\s*$", "Why did {} die?", "text"),
    (r"^Who (?:is|was) (?P<e>.+?)\s*\?\s*$", None, "name"),
)
# An attribute asked in an outer question → the kind of value it wants (any other: text).
WANT_OF_ATTRIBUTE: dict[str, Want] = {
    "place of birth": "place",
    "place of death": "place",
    "date of birth": "date",
    "date of death": "date",
    "nationality": "nationality",
}
