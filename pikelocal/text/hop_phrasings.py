"""How the questions of an encyclopaedic multi-hop benchmark (2WikiMultiHopQA) write their structure, as data: the
relation words ("the director of film X", "paternal grandfather"), the comparisons ("Which film came out first, X or
Y?") and the outer questions of a composition ("Where was {} born?"); then how its hops ask and how its sources say
a maker or a relative ("directed by X", "the son of X"). ``query/answer/hop_plan.py`` is the engine that reads a
question with the first half, ``query/answer/second_hop.py`` reads its hops with the second. The product's own
chains (a clause → the article it cites; a deadline counted from another event; an amount in two documents) are
another table beside this one (``text/chain_phrasings.py``).

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

# ---- how a hop asks, and how the benchmark's sources say it ------------------------------------------------------

# The sub-question each compared attribute is asked with ("{}": the side, or its bridge).
ATTRIBUTE_QUESTIONS: dict[str, str] = {
    "birth": "When was {} born?",
    "death": "When did {} die?",
    "release": "When was {} released?",
    "nationality": "What is the nationality of {}?",
    "country": "Which country is {} from?",
}
# The sub-question a relation hop asks ("{}": the entity): in the words the sources say it with ("directed by").
RELATION_QUESTIONS: dict[str, str] = {
    "director": "Who directed {}?",
    "producer": "Who produced {}?",
    "composer": "Who composed the music for {}?",
    "writer": "Who wrote {}?",
    "screenwriter": "Who wrote {}?",
    "author": "Who wrote {}?",
    "creator": "Who created {}?",
    "founder": "Who founded {}?",
    "presenter": "Who presented {}?",
    "performer": "Who performed {}?",
}
# How a sentence names the maker of a work, before the name: "directed by X", "written and directed by X", "music
# by X" (the verb; "by" follows).
MADE_BY: dict[str, str] = {
    "director": "directed",
    "producer": "produced",
    "composer": r"(?:composed|scored|music(?: was composed)?)",
    "writer": "written",
    "screenwriter": "written",
    "author": "written",
    "creator": "created",
    "founder": "founded",
    "presenter": r"(?:presented|hosted)",
    "performer": r"(?:performed|recorded|sung)",
}
# How a sentence names a family relation's person, before the name: "the son of X" (the first parent named),
# "married X".
FAMILY_BEFORE_NAME: dict[str, str] = {
    "father": r"\b(?:son|daughter|child)\s+of\s+(?:the\s+)?",
    "spouse": r"\b(?:married(?:\s+to)?|wife\s+of|husband\s+of|widow\s+of|spouse\s+of)\s+",
    "wife": r"\b(?:married(?:\s+to)?|husband\s+of|widower\s+of)\s+",
    "husband": r"\b(?:married(?:\s+to)?|wife\s+of|widow\s+of)\s+",
}
# A family relation's words (a sentence naming a person beside the entity names many: cast, children, rivals); a
# work's maker needs none ("a rotoscoped animated short by film-maker Benjamin Arthur").
RELATION_CUES: dict[str, str] = {
    "father": r"\bsons?\b|\bdaughters?\b|\bfather\b|\bchild|\bheir\b",
    "mother": r"\bsons?\b|\bdaughters?\b|\bmother\b|\bchild|\bborn to\b",
    "spouse": r"\bmarri|\bwife\b|\bhusband\b|\bspouse|\bwidow|\bconsort\b",
    "wife": r"\bmarri|\bwife\b|\bhusband\b|\bspouse|\bwidow|\bconsort\b",
    "husband": r"\bmarri|\bwife\b|\bhusband\b|\bspouse|\bwidow|\bconsort\b",
}
# (the hop's question asks …, what the sentence must say)
QUESTION_CUES: tuple[tuple[str, str], ...] = (
    (r"\b(?:born|birth)\b", r"\bborn\b|\bbirth|\bnative of\b"),
    (r"\b(?:die|died|death)\b", r"\bdie[ds]?\b|\bdeath\b|\bkilled\b|\bpassed away\b"),
    (r"\bstudy\b", r"\bstud|\bgraduat|\beducat|\battend|\balumn|\bdegree\b"),
)
# Words of a name that do not tell one entity from another.
NAME_FILLER: frozenset[str] = frozenset(
    ["the", "of", "a", "an", "and", "film", "movie", "in", "on", "at", "de", "la", "le", "el", "du", "des",
     "von", "van", "der"]
)  # fmt: skip
# A title before a name ("Emperor Aurangzeb", "Duke Casimir I"): not part of it (a surname "King" is); patterns.
NAME_TITLES: tuple[str, ...] = (
    "Emperor", "Empress", "King", "Queen", "Prince", "Princess", "Sir", "Lord", "Lady", "Duke", "Duchess", "Saint",
    r"St\.?", r"Dr\.?",
)  # fmt: skip
# The particles inside a name ("Michiel ten Horn", "Ibn al-…").
NAME_PARTICLES: tuple[str, ...] = (
    "de", "da", "del", "della", "di", "do", "dos", "van", "von", "der", "den", "ten", "la", "le", "du", "bin", "ibn",
    "al", "y",
)  # fmt: skip
