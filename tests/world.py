"""The one test world: two federations, their clubs and players, and a user for every
role, built with tests/factories.py and offered to every test as the ``world`` fixture
(tests/conftest.py).

The federations, clubs, players and role holders exist from the start.  The player
with an account, the tournaments (built through the tournaments services) and their
organizer and arbiter are built the first time a test asks for them: a test that counts
players, tournaments, audit entries or queries sees only what it asks for.  A test that
reads a list asks for what it expects in it before it reads it.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from clubs.models import Club, Discipline, Federation, Membership, Player, Role
from tests.factories import (
    ClubFactory,
    DisciplineFactory,
    FederationFactory,
    MembershipFactory,
    PlayerFactory,
    UserFactory,
    grant,
)
from tests.tournaments import builders
from tournaments import services as tournament_services
from tournaments.models import Tournament


@dataclass
class World:
    discipline: Discipline
    federation: Federation  # public; every federation-wide role below acts here
    other_federation: Federation  # not public: another federation, hidden from visitors
    club: Club  # of federation, in Kazan: member (current) and past_member
    second_club: Club  # of federation: second_club_member
    other_club: Club  # of other_federation: foreign
    member: Player  # "Current One", a current member of club, no account
    membership: Membership  # member's current membership of club
    past_member: Player  # "Past One", a member of club in 2020 only
    second_club_member: Player  # "Beta One", a current member of second_club
    foreign: Player  # "Foreign One", of other_federation, a member of other_club
    plain: Any  # signed in, without a role or a player
    club_admin: Any  # of club (staff, as granting the role makes them)
    fed_admin: Any  # of federation (staff)
    other_fed_admin: Any  # of other_federation (staff)
    site_admin: Any  # superuser (staff)

    @cached_property
    def linked_player(self) -> Player:
        """A player of federation linked to a user account (``linked_player.user``), a
        current member of club; built on first use, so that the lists of players the
        tests read hold only the three above unless a test asks for it."""
        player = PlayerFactory(federation=self.federation, user=UserFactory(username="player"))
        MembershipFactory(player=player, club=self.club)
        return player

    @cached_property
    def running_swiss(self) -> Tournament:
        """A Swiss of four players with accounts (seeds 1-4 by entry order), hosted
        at club, three rounds planned, started, no round paired yet."""
        return builders.tournament(
            4,
            "swiss",
            federation=self.federation,
            by=self.fed_admin,
            club=self.club,
            rounds_planned=3,
        )

    @cached_property
    def draft_swiss(self) -> Tournament:
        """A Swiss still in its draft: nobody can enter it yet."""
        return builders.tournament(
            0,
            "swiss",
            federation=self.federation,
            by=self.fed_admin,
            rounds_planned=3,
            register=False,
            start=False,
        )

    @cached_property
    def hidden_swiss(self) -> Tournament:
        """A started Swiss of two players that is not public."""
        hidden = builders.tournament(
            2, "swiss", federation=self.federation, by=self.fed_admin, rounds_planned=1
        )
        tournament_services.update_tournament(hidden, by=self.fed_admin, is_public=False)
        return hidden

    def build_tournaments(self) -> list[Tournament]:
        """Build running_swiss, draft_swiss and hidden_swiss now, for a test that reads
        a list of tournaments before it names them."""
        return [self.running_swiss, self.draft_swiss, self.hidden_swiss]

    @cached_property
    def organizer(self) -> Any:
        """The organizer of running_swiss (a role on that tournament only)."""
        user = UserFactory(username="organizer")
        grant(user, Role.ORGANIZER, self.running_swiss)
        return user

    @cached_property
    def arbiter(self) -> Any:
        """The arbiter of running_swiss."""
        user = UserFactory(username="arbiter")
        grant(user, Role.ARBITER, self.running_swiss)
        return user


def build_world() -> World:
    discipline = DisciplineFactory()
    federation = FederationFactory(name="Public Federation")
    other_federation = FederationFactory(name="Private Federation", is_public=False)
    club = ClubFactory(federation=federation, name="Alpha", city="Kazan")
    second_club = ClubFactory(federation=federation, name="Beta")
    other_club = ClubFactory(federation=other_federation, name="Xeno")

    member = PlayerFactory(
        federation=federation, name_native="Текущий Игрок", name_latin="Current One"
    )
    membership = MembershipFactory(player=member, club=club)
    past_member = PlayerFactory(
        federation=federation, name_native="Бывший Игрок", name_latin="Past One"
    )
    MembershipFactory(
        player=past_member,
        club=club,
        start=datetime.date(2020, 1, 1),
        end=datetime.date(2021, 1, 1),
    )
    second_club_member = PlayerFactory(
        federation=federation, name_native="Бета Игрок", name_latin="Beta One"
    )
    MembershipFactory(player=second_club_member, club=second_club)
    foreign = PlayerFactory(
        federation=other_federation, name_native="Чужой Игрок", name_latin="Foreign One"
    )
    MembershipFactory(player=foreign, club=other_club)

    club_admin = UserFactory(username="club_admin", is_staff=True)
    grant(club_admin, Role.CLUB_ADMIN, club)
    fed_admin = UserFactory(username="fed_admin", is_staff=True)
    grant(fed_admin, Role.FEDERATION_ADMIN, federation)
    other_fed_admin = UserFactory(username="other_fed_admin", is_staff=True)
    grant(other_fed_admin, Role.FEDERATION_ADMIN, other_federation)
    return World(
        discipline=discipline,
        federation=federation,
        other_federation=other_federation,
        club=club,
        second_club=second_club,
        other_club=other_club,
        member=member,
        membership=membership,
        past_member=past_member,
        second_club_member=second_club_member,
        foreign=foreign,
        plain=UserFactory(username="plain"),
        club_admin=club_admin,
        fed_admin=fed_admin,
        other_fed_admin=other_fed_admin,
        site_admin=UserFactory(username="site_admin", is_staff=True, is_superuser=True),
    )
