"""A player's name shows once when the native and Latin spellings differ only by case,
accents and diacritics ("Mustafa Yılmaz", not "Mustafa Yılmaz (Mustafa Yilmaz)"), and
twice when they are two scripts or two spellings (issue 15)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from clubs.models import Player
from clubs.names import display_name, fold, latin_adds
from tests.factories import ClubFactory, MembershipFactory, PlayerFactory


@pytest.mark.parametrize(
    ("native", "latin", "shown"),
    [
        # Turkish: dotless ı, ş, ğ, ç, ö, ü, and the dotted capital İ.
        ("Mustafa Yılmaz", "Mustafa Yilmaz", "Mustafa Yılmaz"),
        ("Şükrü Öztürk", "Sukru Ozturk", "Şükrü Öztürk"),
        ("İsmail Çağlar", "Ismail Caglar", "İsmail Çağlar"),
        ("IŞIK GÜNEŞ", "Isik Gunes", "IŞIK GÜNEŞ"),  # case does not matter either
        # Azerbaijani: ş, ğ, ç, ö, ü, ı fold; ə is a letter of its own, so a different
        # spelling (Məmmədov / Mammadov) is shown.
        ("Şahin Ağayev", "Sahin Agayev", "Şahin Ağayev"),
        ("Gülnar Rüstəmova", "Gulnar Rustamova", "Gülnar Rüstəmova (Gulnar Rustamova)"),
        ("Elçin Məmmədov", "Elchin Mammadov", "Elçin Məmmədov (Elchin Mammadov)"),
        # Russian in Cyrillic and its transliteration: two scripts, both shown.
        ("Мамедов Эльчин", "Mamedov Elchin", "Мамедов Эльчин (Mamedov Elchin)"),
        ("Ёлкин Пётр", "Yolkin Pyotr", "Ёлкин Пётр (Yolkin Pyotr)"),
        # Other Latin alphabets: ß, ø, ł, é.
        ("Jürgen Groß", "Jurgen Gross", "Jürgen Groß"),
        ("Søren Łukasz", "Soren Lukasz", "Søren Łukasz"),
        ("Élodie  Durand", "Elodie Durand", "Élodie  Durand"),
        # One name only, or both the same.
        ("", "Ivan Petrov", "Ivan Petrov"),
        ("Ivan Petrov", "Ivan Petrov", "Ivan Petrov"),
    ],
)
def test_a_name_shows_once_when_the_scripts_differ_only_by_accents(
    native: str, latin: str, shown: str
) -> None:
    assert display_name(native, latin) == shown
    assert str(Player(name_native=native, name_latin=latin)) == shown
    assert Player(name_native=native, name_latin=latin).shows_latin is ("(" in shown)


def test_the_fold_keeps_other_scripts_and_sets_marks_aside() -> None:
    assert fold("Mustafa YILMAZ") == fold("mustafa yılmaz") == "mustafa yilmaz"
    assert fold("Straße") == "strasse"
    assert fold("Мамедов") == "мамедов"  # not transliterated: a script of its own
    assert fold("Йод") == "иод"  # the breve is a mark like any other
    assert not latin_adds("Mustafa Yılmaz", "Mustafa Yilmaz")
    assert latin_adds("Мамедов Эльчин", "Mamedov Elchin")
    assert not latin_adds("", "Mamedov Elchin")


@pytest.mark.django_db
def test_pages_show_an_accented_name_once() -> None:
    club = ClubFactory()
    turkish = PlayerFactory(
        federation=club.federation, name_native="Mustafa Yılmaz", name_latin="Mustafa Yilmaz"
    )
    russian = PlayerFactory(
        federation=club.federation, name_native="Мамедов Эльчин", name_latin="Mamedov Elchin"
    )
    for player in (turkish, russian):
        MembershipFactory(player=player, club=club)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = client.get(reverse("clubs:player", args=[turkish.pk])).content.decode()
    assert "Mustafa Yılmaz" in page and "Mustafa Yilmaz" not in page
    page = client.get(reverse("clubs:player", args=[russian.pk])).content.decode()
    assert "Мамедов Эльчин" in page and "Mamedov Elchin" in page
    members = client.get(
        reverse("clubs:club", args=[club.federation.slug, club.slug])
    ).content.decode()
    assert "Mustafa Yilmaz" not in members and "Mamedov Elchin" in members
