"""The small towns' table: places of 500 people and more the main gazetteer lacks, searched by
bisection in the packaged file, and asked only where the caller allows it."""

from __future__ import annotations

import gzip
from importlib import resources

import pytest

from uac.extract import towns
from uac.extract.places import fold, lookup, town_sizes


def test_the_packaged_table_is_sorted_by_its_keys_so_bisection_finds_every_line():
    data = gzip.decompress(resources.files("uac.extract").joinpath("data/towns.tsv.gz").read_bytes())
    lines = data.decode("utf-8").splitlines()
    assert len(lines) > 200_000
    assert lines == sorted(lines)
    keys = [line.split("\t", 1)[0] for line in lines[::997]]
    for key in keys:
        assert any(name for _pop, _cc, _a1, name in towns.rows(key)), key


@pytest.mark.parametrize(
    ("name", "country"),
    [("Ericeira", "PT"), ("Sedona", "US"), ("Tjøme", "NO"), ("Schiermonnikoog", "NL"), ("Tofino", "CA")],
)
def test_a_small_town_is_found_with_its_country(name, country):
    rows = towns.rows(fold(name))
    assert rows and rows[0][1] == country
    place = lookup(name, towns=True)
    assert place is not None and place.kind == "city" and place.country == country


def test_rows_are_most_populous_first_and_a_missing_name_has_none():
    rows = towns.rows("st andrews")
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    assert rows[0][1] == "GB"
    assert towns.rows("zorblat falls") == [] and towns.rows("") == [] and towns.rows("zzzz") == []


def test_another_name_of_several_words_finds_the_place():
    assert lookup("Quebec City", towns=True).country == "CA"
    assert lookup("Galway", towns=True).country == "IE"  # the installed table calls it "Gaillimh"


@pytest.mark.parametrize(("name", "country"), [("Fort William", "GB"), ("Margaret River", "AU"), ("Gulf Shores", "US")])
def test_a_town_of_english_words_with_a_word_of_its_kind(name, country):
    assert lookup(name, towns=True).country == country


def test_the_table_is_asked_only_when_the_caller_allows_it():
    assert lookup("Ericeira") is None
    assert lookup("Lisbon", towns=True).country == "PT"  # the main table answers first


@pytest.mark.parametrize("name", ["Chase", "Grace", "Jack", "Target", "Green Hill"])
def test_ordinary_english_words_are_no_small_town(name):
    assert lookup(name, towns=True) is None
    assert town_sizes(name) == {}


def test_town_sizes_names_each_country_holding_the_town():
    sizes = town_sizes("Tobermory")
    assert set(sizes) >= {"CA", "GB"} and sizes["CA"] > 1000
