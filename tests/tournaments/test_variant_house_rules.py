"""An organizer's house rules for a variant with options (Soldiers' army and
placement, RULES.md §3.1): set on the tournament (console form or API, RULES'
defaults preselected), checked by the engine with the reason on the field, given
to every match of the tournament, which starts its games from them; fixed once
the tournament runs."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from engine.rules import game as eg
from engine.soldiers import bridge
from games import adapters
from games.models import Match
from tests.factories import DisciplineFactory
from tests.tournaments import builders
from tests.tournaments.test_console import create_data
from tournaments import services
from tournaments.models import Tournament, TournamentState

pytestmark = pytest.mark.django_db

HOUSE = {"army": "K2 G1", "placement": "K24x2 G13"}


def soldiers() -> Any:
    return DisciplineFactory(
        code="soldiers",
        name="Soldiers",
        variant="soldiers",
        scoring_preset="short-standard",
        cube=True,
        variant_options={},  # RULES' defaults
    )


def house_tournament(**settings: Any) -> Tournament:
    federation, admin, _short = builders.federation_with_admin()
    t = services.create_tournament(
        by=admin,
        federation=federation,
        name="Soldiers house cup",
        discipline=soldiers(),
        format="swiss",
        rounds_planned=2,
        match_length=1,
        **settings,
    )
    services.set_state(t, TournamentState.REGISTRATION, by=admin)
    for k, player in enumerate(builders.players(federation, 4)):
        services.add_entry(t, player, by=admin, rating=2000.0 - 10 * k)
    services.start_tournament(t, by=admin)
    t.refresh_from_db()
    return t


def start_of(match: Match) -> str:
    """The class-aware text of the start the match's games are played from."""
    return bridge.position_text(eg.start_position(adapters.rules_for(match)))


def first_match(t: Tournament) -> Match:
    rnd = services.pair_next_round(t, by=t.created_by, flight="main")
    services.start_round(rnd, by=t.created_by)
    pairing = rnd.pairings.exclude(match=None).select_related("match").first()
    assert pairing is not None and pairing.match is not None
    return pairing.match


def test_the_tournament_s_house_rules_reach_every_match_s_start() -> None:
    t = house_tournament(variant_options=HOUSE)
    assert t.variant_options == HOUSE
    match = first_match(t)
    assert match.variant_options == HOUSE
    text = start_of(match)
    assert text.count("K24x2") == 2  # two generals on each side's 24
    assert " D" not in text and " E" not in text  # no druid, no wounded


def test_without_house_rules_the_discipline_s_options_hold() -> None:
    match = first_match(house_tournament())
    assert match.variant_options == {}
    text = start_of(match)
    assert "K24 P24" in text and "D8" in text  # RULES' default army where it starts


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"army": "K16"}, "15"),
        ({"army": "X1"}, "X"),
        ({"army": "G6"}, "guard on 13"),
        ({"colour": "red"}, "no option"),
    ],
)
def test_options_the_variant_cannot_use_are_refused_on_the_setting(
    options: dict[str, str], words: str
) -> None:
    federation, admin, _short = builders.federation_with_admin()
    with translation.override("en"), pytest.raises(ValidationError) as refused:
        services.create_tournament(
            by=admin,
            federation=federation,
            name="Bad house",
            discipline=soldiers(),
            format="swiss",
            variant_options=options,
        )
    assert words in " ".join(refused.value.message_dict["variant_options"])
    assert not Tournament.objects.filter(name="Bad house").exists()


def test_a_variant_without_options_takes_none() -> None:
    federation, admin, short = builders.federation_with_admin()
    with pytest.raises(ValidationError) as refused:
        services.create_tournament(
            by=admin,
            federation=federation,
            name="Short",
            discipline=short,
            format="swiss",
            variant_options={"army": "K1"},
        )
    assert "variant_options" in refused.value.message_dict


def test_the_house_rules_are_fixed_once_the_tournament_runs() -> None:
    t = house_tournament(variant_options=HOUSE)
    with pytest.raises(ValidationError) as refused:
        services.update_tournament(t, by=t.created_by, variant_options={"army": "K1"})
    assert "variant_options" in refused.value.message_dict


def test_the_console_form_sets_them_with_rules_defaults_preselected(client: Any) -> None:
    federation, admin, _short = builders.federation_with_admin()
    discipline = soldiers()
    client.force_login(admin)
    page = client.get(reverse("tournaments:new")).content.decode()
    assert 'value="K1 G1 D1 E1 O1"' in page and 'value="K24 G13 D8 E6 O6"' in page
    data = create_data(federation, discipline, army="K2 G1", placement="K24x2 G13")
    response = client.post(reverse("tournaments:new"), data)
    assert response.status_code == 302
    t = Tournament.objects.get(name="Spring Swiss")
    assert t.variant_options == HOUSE
    # The settings page shows them again.
    settings_page = client.get(reverse("tournaments:settings", args=[t.pk])).content.decode()
    assert 'value="K2 G1"' in settings_page


def test_the_console_form_shows_the_engine_s_reason_on_the_field(client: Any) -> None:
    federation, admin, _short = builders.federation_with_admin()
    client.force_login(admin)
    data = create_data(federation, soldiers(), army="K16", placement="")
    response = client.post(reverse("tournaments:new"), data, HTTP_ACCEPT_LANGUAGE="ru")
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == ["army"]
    assert not Tournament.objects.filter(name="Spring Swiss").exists()


def test_other_disciplines_ignore_the_option_fields(client: Any) -> None:
    federation, admin, short = builders.federation_with_admin()
    client.force_login(admin)
    response = client.post(reverse("tournaments:new"), create_data(federation, short))
    assert response.status_code == 302
    assert Tournament.objects.get(name="Spring Swiss").variant_options == {}


def test_the_api_takes_them_and_refuses_unknown_names(client: Any) -> None:
    t = house_tournament(variant_options=HOUSE)
    client.force_login(t.created_by)
    shown = client.get(f"/api/tournaments/{t.pk}/").json()
    assert shown["variant_options"] == HOUSE
    refused = client.patch(
        f"/api/tournaments/{t.pk}/",
        {"variant_options": {"colour": "red"}},
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert "variant_options" in refused.json()
