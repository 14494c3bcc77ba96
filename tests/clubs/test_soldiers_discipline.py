"""A Soldiers discipline (RULES.md §3.1): its army and placement set in the admin
with the defaults preselected, checked by the engine, refused on the field in
the reader's language; tournaments and rating pools choose it like any other."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from clubs import services
from clubs.models import Discipline
from ratings import services as rating_services
from tests.world import World
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"admin:clubs_{name}", args=args)


def soldiers(**fields: Any) -> dict[str, Any]:
    data = {
        "code": "soldiers",
        "name": "Soldiers",
        "variant": "soldiers",
        "scoring_preset": "short-standard",
        "cube": "on",
        "army": "K1 G1 D1 E1 O1",
        "placement": "K24 G13 D8 E6 O6",
        "placement_black": "",
    }
    data.update(fields)
    return data


def test_the_admin_preselects_the_default_army_and_placement(client: Any, world: World) -> None:
    client.force_login(world.site_admin)
    page = client.get(url("discipline_add"))
    form = page.context["adminform"].form
    assert form.fields["army"].initial == "K1 G1 D1 E1 O1"
    assert form.fields["placement"].initial == "K24 G13 D8 E6 O6"
    chosen = soldiers(army="K2 G1", placement="K24x2 G13")
    assert client.post(url("discipline_add"), chosen).status_code == 302
    made = Discipline.objects.get(code="soldiers")
    assert made.variant_options == {"army": "K2 G1", "placement": "K24x2 G13"}
    assert dict(made.game_options) == made.variant_options
    # editing shows what is stored, and a change is kept
    page = client.get(url("discipline_change", made.pk))
    assert page.context["adminform"].form.fields["army"].initial == "K2 G1"
    changed = soldiers(army="K1", placement="K24")
    assert client.post(url("discipline_change", made.pk), changed).status_code == 302
    made.refresh_from_db()
    assert made.variant_options == {"army": "K1", "placement": "K24"}


@pytest.mark.parametrize(
    ("fields", "field", "english", "russian"),
    [
        ({"army": "K5 G5 D5 E1"}, "army", "16 class checkers", "16"),
        ({"army": "K1 X1"}, "army", "K (general)", "генерал"),
        ({"placement": "K24 G13 D8 E6 O5"}, "placement", "on 5", "5"),
        ({"placement": "K24"}, "placement", "the army has 1", "1"),
        ({"placement_black": "K24 G13 D8 E6 O2"}, "placement_black", "on 2", "2"),
    ],
)
def test_bad_options_are_refused_on_their_field_in_the_readers_language(
    client: Any, world: World, fields: dict[str, str], field: str, english: str, russian: str
) -> None:
    client.force_login(world.site_admin)
    for language, expected in (("en", english), ("ru", russian)):
        response = client.post(
            url("discipline_add"), soldiers(**fields), HTTP_ACCEPT_LANGUAGE=language
        )
        assert response.status_code == 200
        errors = response.context["adminform"].form.errors
        assert field in errors and expected in " ".join(errors[field]), errors
    assert not Discipline.objects.filter(code="soldiers").exists()


def test_the_model_checks_the_options_in_russian_too(world: World) -> None:
    discipline = Discipline(
        code="s",
        name="S",
        variant="soldiers",
        scoring_preset="short-standard",
        variant_options={"army": "G6"},
    )
    with translation.override("ru"), pytest.raises(ValidationError) as error:
        discipline.full_clean()
    message = " ".join(error.value.message_dict["variant_options"])
    assert "13" in message and any("а" <= c <= "я" for c in message)
    # other variants take no options
    short = Discipline(code="x", name="X", variant="short", scoring_preset="short-standard")
    short.variant_options = {"army": "K1"}
    with translation.override("en"), pytest.raises(ValidationError) as error:
        short.full_clean()
    assert "no option" in " ".join(error.value.message_dict["variant_options"])
    short.variant_options = {}
    short.full_clean()


def soldiers_discipline(world: World) -> Discipline:
    return services.create_discipline(
        by=world.site_admin,
        code="soldiers",
        name="Soldiers",
        variant="soldiers",
        scoring_preset="short-standard",
        custom_scoring=None,
        cube=True,
        variant_options={"army": "K1 G1 D1 E1 O1", "placement": "K24 G13 D8 E6 O6"},
    )


def test_a_tournament_is_created_with_a_soldiers_discipline(world: World) -> None:
    discipline = soldiers_discipline(world)
    tournament = tournament_services.create_tournament(
        by=world.fed_admin,
        federation=world.federation,
        name="Soldiers cup",
        discipline=discipline,
        format="swiss",
        rounds_planned=3,
    )
    assert tournament.discipline.variant == "soldiers"


def test_a_rating_pool_rates_a_soldiers_discipline(world: World) -> None:
    discipline = soldiers_discipline(world)
    link = services.rate_discipline(
        world.federation, discipline, by=world.fed_admin, rating_system="fibs"
    )
    pool = rating_services.ensure_pool(link)
    assert pool.rated_discipline.discipline == discipline
    assert rating_services.recompute_pool(pool).matches == 0
