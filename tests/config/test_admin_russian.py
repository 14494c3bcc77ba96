"""The admin in Russian: translated column names, translated variant names,
and titles that stay grammatical whatever the model ("Добавление: игрок",
not "Добавить игрок")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.contenttypes.fields import GenericForeignKey
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext

from tests.conftest import ROOT
from tests.factories import DisciplineFactory, MatchFactory, UserFactory

# The project's own apps (clubs, games, ratings, tournaments...), not Django's.
APPS = tuple(config.label for config in apps.get_app_configs() if Path(config.path).parent == ROOT)
RU = {"HTTP_ACCEPT_LANGUAGE": "ru"}
CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def test_every_model_field_has_a_translatable_verbose_name() -> None:
    # Without one, Django shows the attribute's name ("created at") in every language.
    missing = []
    checked = 0
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            for field in model._meta.get_fields():
                if field.auto_created or isinstance(field, GenericForeignKey):
                    continue
                checked += 1
                if not isinstance(field.verbose_name, Promise):
                    missing.append(f"{model.__name__}.{field.name}")
            for option in ("verbose_name", "verbose_name_plural"):
                if not isinstance(getattr(model._meta, option), Promise):
                    missing.append(f"{model.__name__} Meta.{option}")
    assert {"clubs", "games", "ratings", "tournaments"} <= set(APPS)
    assert checked > 200
    assert not missing, f"add verbose_name=_('...'): {missing}"


def test_every_model_name_reads_in_russian() -> None:
    with translation.override("ru"):
        english = [
            f"{model.__name__}: {model._meta.verbose_name} / {model._meta.verbose_name_plural}"
            for label in APPS
            for model in apps.get_app_config(label).get_models()
            if not CYRILLIC.search(str(model._meta.verbose_name))
            or not CYRILLIC.search(str(model._meta.verbose_name_plural))
        ]
    assert not english


@pytest.fixture
def root(client):  # type: ignore[no-untyped-def]
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def page(client, name: str, *args: object) -> str:  # type: ignore[no-untyped-def]
    response = client.get(reverse(name, args=args), **RU)
    assert response.status_code == 200, name
    return response.content.decode()


def title(html: str) -> str:
    found = re.search(r"<title>(.*?)</title>", html, re.S)
    assert found
    return found.group(1).strip()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("model", "nominative", "purpose"),
    [
        ("clubs_player", "игрок", "изменения"),
        ("clubs_club", "клуб", "изменения"),
        ("clubs_federation", "федерация", "изменения"),
        ("games_match", "матч", "просмотра"),  # matches are read-only in the admin
        ("auth_group", "группа", "изменения"),
    ],
)
def test_change_list_and_add_pages_are_grammatical(
    root, model: str, nominative: str, purpose: str
) -> None:  # type: ignore[no-untyped-def]
    listing = page(root, f"admin:{model}_changelist")
    assert title(listing).startswith(f"Выберите объект «{nominative}» для {purpose}")
    assert f"Выберите {nominative} для" not in listing
    assert f"Добавить {nominative}" not in listing
    add_url = reverse(f"admin:{model}_add")
    if f'href="{add_url}"' in listing:
        assert f"Добавить: {nominative}" in listing
        assert title(page(root, f"admin:{model}_add")).startswith(f"Добавление: {nominative}")


@pytest.mark.django_db
def test_the_index_names_groups_in_the_nominative_plural(root) -> None:  # type: ignore[no-untyped-def]
    html = page(root, "admin:index")
    assert re.search(r">\s*Группы\s*<", html)
    assert not re.search(r">\s*Групп\s*<", html)


@pytest.mark.django_db
def test_columns_and_variant_names_are_translated(root) -> None:  # type: ignore[no-untyped-def]
    DisciplineFactory(
        code="long-nardy-masters", name="Long nardy", variant="long", scoring_preset="long-masters"
    )
    disciplines = page(root, "admin:clubs_discipline_changelist")
    assert "длинные нарды" in disciplines and "длинные нарды: марс и домашний марс" in disciplines
    assert not re.search(r"<td[^>]*>\s*long\s*</td>", disciplines)
    MatchFactory()
    matches = page(root, "admin:games_match_changelist")
    assert "Создано" in matches
    assert not re.search(r">\s*created at\s*<", matches, re.I)


def test_what_the_admin_says_after_saving_is_grammatical_in_russian() -> None:
    # Django words these with the model's name in the subject ("{name} “{obj}” был
    # успешно изменен"), wrong for every feminine model; ours name the object instead.
    with translation.override("ru"):
        said = {
            msgid: gettext(msgid).format(name="группа", obj="Судьи", object="Судьи", fields="имя")
            for msgid in (
                "The {name} “{obj}” was added successfully.",
                "The {name} “{obj}” was changed successfully.",
                "Added {name} “{object}”.",
                "Deleted {name} “{object}”.",
            )
        }
        deleted = gettext("The %(name)s “%(obj)s” was deleted successfully.") % {
            "name": "группа",
            "obj": "Судьи",
        }
    assert said["The {name} “{obj}” was added successfully."] == (
        "Объект «Судьи» (группа) успешно добавлен."
    )
    assert said["The {name} “{obj}” was changed successfully."] == (
        "Объект «Судьи» (группа) успешно изменён."
    )
    assert said["Added {name} “{object}”."] == "Добавлен объект «Судьи» (группа)."
    assert said["Deleted {name} “{object}”."] == "Удалён объект «Судьи» (группа)."
    assert deleted == "Объект «Судьи» (группа) успешно удалён."
