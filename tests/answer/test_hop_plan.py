"""The second hop's plans (query/answer/hop_plan.py) and values (query/answer/hop_values.py): questions split by
patterns, dates read and compared, countries named by their people's word. No model."""

from __future__ import annotations

import pytest

from pikelocal.query.answer.hop_plan import Comparison, Composition, Entity, entity, hop_plan
from pikelocal.query.answer.hop_values import Date, compare_dates, countries_in, dates_in, life_span, pick_date

# ---- comparisons -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "attribute", "pick"),
    [
        ("Which film came out first, How To Avoid Everything or Thai Mozhi?", "release", "earlier"),
        (
            "Which film was released more recently, A Scream From Silence or Das Spielzeug Von Paris?",
            "release",
            "later",
        ),
        ("Who was born later, Marián Andrej Pacák or Louis Panet?", "birth", "later"),
        ("Who is younger, Vrindavan Lal Verma or Kerem İnan?", "birth", "later"),
        ("Who died first, Anna Sten or Lil Dagover?", "death", "earlier"),
    ],
)
def test_a_comparison_of_two_named_sides(question: str, attribute: str, pick: str) -> None:
    plan = hop_plan(question)
    assert isinstance(plan, Comparison) and (plan.attribute, plan.pick) == (attribute, pick)
    assert all(not side.relations for side in plan.sides)
    first = question.split(", ", 1)[1].split(" or ")[0]
    assert plan.sides[0].name == first  # the name as the question wrote it (the answer shows it)


@pytest.mark.parametrize(
    ("question", "attribute", "pick", "names"),
    [
        (
            "Which film has the director died earlier, High Society Blues or Counterblast?",
            "death", "earlier", ("High Society Blues", "Counterblast"),
        ),
        (
            "Which film whose director is younger, Once Upon A Time In The Woods or Party Husband?",
            "birth", "later", ("Once Upon A Time In The Woods", "Party Husband"),
        ),
        (
            "Which film has the director who is older than the other, Those Happy Years or México, México, Ra, Ra, Ra?",
            "birth", "earlier", ("Those Happy Years", "México, México, Ra, Ra, Ra"),
        ),
    ],
)  # fmt: skip
def test_a_bridge_comparison_is_a_hop_per_side(
    question: str, attribute: str, pick: str, names: tuple[str, str]
) -> None:
    plan = hop_plan(question)
    assert isinstance(plan, Comparison) and (plan.attribute, plan.pick) == (attribute, pick)
    assert plan.sides == tuple(Entity(n, ("director",), "film") for n in names)


def test_same_country_and_same_nationality() -> None:
    films = hop_plan("Are the movies Ostitto and Hangor Nodi Grenade, from the same country?")
    assert films == Comparison(
        (Entity("Ostitto", (), "film"), Entity("Hangor Nodi Grenade", (), "film")), "country", "same"
    )
    people = hop_plan(
        "Do director of film Invisible Ghost and director of film Africa Texas Style have the same nationality?"
    )
    assert isinstance(people, Comparison) and people.attribute == "nationality" and people.pick == "same"
    assert [s.relations for s in people.sides] == [("director",), ("director",)]


# ---- compositions ------------------------------------------------------------------------------------------------


def test_a_composition_asks_the_outer_question_of_the_bridge() -> None:
    plan = hop_plan("Where was the director of film The Autobiography Of Nicolae Ceaușescu born?")
    assert plan == Composition(
        Entity("The Autobiography Of Nicolae Ceaușescu", ("director",), "film"), "Where was {} born?", "place"
    )
    assert hop_plan("Where did Carl Von Fersen's wife die?") == Composition(
        Entity("Carl Von Fersen", ("wife",)), "Where did {} die?", "place"
    )
    dated = hop_plan("What is the date of birth of George Ernest, Count Of Erbach-Wildenstein's father?")
    assert isinstance(dated, Composition) and dated.want == "date"
    assert dated.entity == Entity("George Ernest, Count Of Erbach-Wildenstein", ("father",))


def test_a_grandfather_is_two_hops_and_the_bridge_is_the_answer() -> None:
    assert hop_plan("Who is the maternal grandfather of Antiochus Iv?") == Composition(
        Entity("Antiochus Iv", ("mother", "father"))
    )
    assert hop_plan("Who is Phila (Daughter Of Seleucus)'s paternal grandfather?") == Composition(
        Entity("Phila (Daughter Of Seleucus)", ("father", "father"))
    )
    spouse = hop_plan("Who is the spouse of the director of film Up, Down, Fragile?")
    assert spouse == Composition(Entity("Up, Down, Fragile", ("director", "spouse"), "film"))


def test_one_hop_and_other_questions_get_no_plan() -> None:
    for question in (
        "Who is the father of Ramesses II?",  # one hop: the ordinary quote-then-answer
        "Where was Andrei Ujică born?",
        "What movie was directed by Harold Ramis and stars Bill Murray?",
        "Are Pterostyrax and Dregea both native to Asia?",
        "投标保证金是多少？",
        "服務建議書的總頁數不得超過幾頁？",
        "Is the following statement true or false? The court ordered costs.",
    ):
        assert hop_plan(question) is None, question


def test_a_title_after_film_is_a_name_not_a_relation() -> None:
    assert entity("the director of film Father Of The Bride") == Entity("Father Of The Bride", ("director",), "film")
    assert entity("the wife of the father of Anne") == Entity("Anne", ("father", "wife"))


# ---- values ------------------------------------------------------------------------------------------------------


def test_dates_are_read_as_far_as_stated() -> None:
    text = "David Butler (December 17, 1894 – June 14, 1979) was born in 1894; in 25 BC; 17 February 1948; May 1930"
    assert [(d.year, d.month, d.day) for d in dates_in(text)] == [
        (1894, 12, 17), (1979, 6, 14), (1894, None, None), (-25, None, None), (1948, 2, 17), (1930, 5, None),
    ]  # fmt: skip
    assert dates_in("It had 42,972 inhabitants and 1.5 million visitors.") == []


def test_a_life_span_tells_birth_from_death() -> None:
    birth, death = life_span("David Butler (December 17, 1894 – June 14, 1979) was an American director.") or (
        None,
        None,
    )
    assert birth is not None and death is not None and (birth.year, death.year) == (1894, 1979)
    assert life_span("Andrei Ujică (born 1951 in Timişoara, Romania) is a director.") == (Date(1951, text="1951"), None)
    # the model answered the birth date to "when did he die?": the span says which date is the death
    died = pick_date("December 17, 1894", "David Butler (December 17, 1894 – June 14, 1979) was …", "death")
    assert died is not None and (died.year, died.month, died.day) == (1979, 6, 14)
    # a death the sentence does not state is no answer, whatever the model said
    assert pick_date("1951", "Andrei Ujică (born 1951 in Timişoara) is a director.", "death") is None
    # a year the sentence does not hold is no answer
    assert pick_date("1939", "Sarah Prefers to Run is a 2013 Canadian drama film.", "release") is None


def test_dates_compare_on_what_both_state() -> None:
    assert compare_dates(Date(1930), Date(1948)) == "earlier"
    assert compare_dates(Date(1948, 3, 1), Date(1948, 2, 17)) == "later"
    assert compare_dates(Date(1930), Date(1930, 5)) is None  # the same year, a month missing: undecided
    assert compare_dates(Date(1930, 5, 2), Date(1930, 5, 2)) is None  # equal
    assert compare_dates(Date(-25), Date(12)) == "earlier"  # 25 BC before AD 12


def test_countries_by_name_or_people() -> None:
    assert countries_in("How To Avoid Everything is a 2014 Dutch comedy film") == {"Netherlands"}
    assert countries_in("a 1972 West German- French drama film") == {"West Germany", "France"}
    assert countries_in("He was an American film director born in the United States.") == {"United States"}
    assert countries_in("a South Korean film") == {"South Korea"}
    assert countries_in("directed by Justin Lin") == frozenset()
