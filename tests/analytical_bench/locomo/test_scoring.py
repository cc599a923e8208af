import pytest

from analytical_bench.locomo.scoring import (
    answer_tokens,
    is_refusal,
    multi_answer_f1,
    normalize_answer,
    score_answer,
    token_f1,
)


def test_normalize_drops_commas_case_punctuation_articles_and_folds_spaces():
    assert normalize_answer("The  Cat, and a Dog!") == "cat dog"
    assert normalize_answer("An apple-pie.") == "applepie"
    # commas are dropped before splitting: "1,000" is one token
    assert normalize_answer("1,000 miles") == "1000 miles"
    # whole words only: "theory" and "andrew" keep their letters
    assert normalize_answer("Theory of Andrew") == "theory of andrew"
    assert normalize_answer(None) == ""
    assert normalize_answer(7) == "7"


def test_tokens_are_porter_stemmed():
    assert answer_tokens("running dogs") == ["run", "dog"]
    assert answer_tokens("The painting") == ["paint"]


def test_token_f1_hand_computed():
    assert token_f1("cello", "cello") == 1.0
    # pred {paint, lake}, gold {winter, lake}: one shared; P = 1/2, R = 1/2
    assert token_f1("painted lake", "a winter lake") == pytest.approx(0.5)
    # pred 3 tokens, gold 1, shared 1: P = 1/3, R = 1 -> F1 = 0.5
    assert token_f1("she plays cello", "cello") == pytest.approx(0.5)
    # counts are clipped: pred "dog dog", gold "dog": P = 1/2, R = 1 -> 2/3
    assert token_f1("dog dog", "dog") == pytest.approx(2 / 3)
    assert token_f1("", "cello") == 0.0
    assert token_f1("violin", "cello") == 0.0


def test_integer_gold_is_stringified():
    assert score_answer(2, "3", 3) == 1.0
    assert score_answer(4, "3 concerts", 3) == pytest.approx(2 / 3)


def test_category_1_averages_each_gold_part_best_match():
    # gold parts Lisbon, Porto; predicted parts Porto, Madrid: 1.0 and 0.0 -> 0.5
    assert multi_answer_f1("Porto, Madrid", "Lisbon, Porto") == pytest.approx(0.5)
    assert score_answer(1, "Lisbon, Porto", "Porto, Lisbon") == 1.0
    # one predicted part vs two gold parts: "lisbon" = 1, "porto" = 0
    assert score_answer(1, "Lisbon", "Lisbon, Porto") == pytest.approx(0.5)
    # unsplit F1 would be 0.8 (P 2/3, R 1); per gold part it is 0.5 and 0.5 (P 1/3, R 1)
    assert token_f1("Lisbon Porto Madrid", "Lisbon Porto") == pytest.approx(0.8)
    assert score_answer(1, "Lisbon Porto Madrid", "Lisbon, Porto") == pytest.approx(0.5)


def test_categories_2_and_4_are_plain_f1():
    assert score_answer(2, "7 May 2023", "7 May 2023") == 1.0
    # no comma split in category 4: "paris france" vs "paris" -> P 1/2, R 1
    assert score_answer(4, "Paris, France", "Paris") == pytest.approx(2 / 3)
    # "may 2023" vs "7 may 2023": P 1, R 2/3 -> 0.8
    assert score_answer(2, "May 2023", "7 May 2023") == pytest.approx(0.8)


def test_category_3_cuts_gold_at_first_semicolon():
    assert score_answer(3, "yes", "Yes; he hikes every free weekend") == 1.0
    assert score_answer(3, "hikes", "Yes; he hikes every free weekend") == 0.0


def test_category_5_refusal():
    assert score_answer(5, "Not mentioned in the conversation.", None) == 1.0
    assert score_answer(5, "No information available", "cello") == 1.0
    assert score_answer(5, "NOT MENTIONED", None) == 1.0
    assert score_answer(5, "cello", None) == 0.0
    assert score_answer(5, "I don't know", None) == 0.0
    assert is_refusal("this was not mentioned anywhere")
    assert not is_refusal(None)


def test_unknown_category_raises():
    with pytest.raises(ValueError):
        score_answer(6, "x", "x")


def test_missing_nltk_is_a_clear_error(monkeypatch):
    import sys

    from analytical_bench.locomo import scoring
    from uac.errors import ConfigError

    scoring._stemmer.cache_clear()
    monkeypatch.setitem(sys.modules, "nltk", None)
    monkeypatch.setitem(sys.modules, "nltk.stem", None)
    try:
        with pytest.raises(ConfigError, match="nltk") as info:
            scoring._stemmer()
        assert "pip install 'user-as-code[bench]'" in info.value.hint
    finally:
        scoring._stemmer.cache_clear()
