"""Factories for test data built in code (never large fixtures)."""

from __future__ import annotations

import datetime

import factory
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType

from clubs.models import (
    Club,
    Discipline,
    Federation,
    Membership,
    Player,
    Role,
    RoleAssignment,
)


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.org")
    password = factory.django.Password("correct-horse-battery")


class FederationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Federation

    name = factory.Sequence(lambda n: f"Nardy Federation {n}")
    short_name = factory.Sequence(lambda n: f"NF{n}")
    slug = factory.Sequence(lambda n: f"nf-{n}")
    country = "RU"


class DisciplineFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Discipline
        django_get_or_create = ("code",)

    code = "short-standard"
    name = "Short nardy"
    variant = "short"
    scoring_preset = "short-standard"
    cube = True


class ClubFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Club

    federation = factory.SubFactory(FederationFactory)
    name = factory.Sequence(lambda n: f"Club {n}")
    slug = factory.Sequence(lambda n: f"club-{n}")
    city = "Moscow"


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player

    name_native = factory.Sequence(lambda n: f"Игрок {n}")
    name_latin = factory.Sequence(lambda n: f"Igrok {n}")
    birth_year = 1990
    country = "RU"
    federation = factory.SubFactory(FederationFactory)
    membership_number = factory.Sequence(lambda n: f"M{n:05d}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    player = factory.SubFactory(PlayerFactory)
    club = factory.SubFactory(ClubFactory)
    start = datetime.date(2024, 1, 1)
    end = None


def grant(user, role: Role | str, scope) -> RoleAssignment:  # type: ignore[no-untyped-def]
    """Give ``user`` a role directly (tests of the policy, not of the grant service)."""
    return RoleAssignment.objects.create(
        user=user,
        role=role,
        scope_type=ContentType.objects.get_for_model(type(scope)),
        scope_id=scope.pk,
    )


class MatchFactory(factory.django.DjangoModelFactory):
    """A match between two players who each have a user account."""

    class Meta:
        model = "games.Match"

    player1 = factory.SubFactory(PlayerFactory, user=factory.SubFactory(UserFactory))
    player2 = factory.SubFactory(
        PlayerFactory,
        user=factory.SubFactory(UserFactory),
        federation=factory.SelfAttribute("..player1.federation"),
    )
    discipline = factory.SubFactory(DisciplineFactory)
    federation = factory.SelfAttribute("player1.federation")
    length = 3
    recorded = True
