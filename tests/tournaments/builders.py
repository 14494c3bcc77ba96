"""Building and playing tournaments through the services, for the tournaments tests.

Results go through games.services like the real thing: the player of side 1
reports, the player of side 2 confirms (``confirm_result``), or an admin
overrides (``override_result``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import reverse

from clubs.models import Discipline, Federation, Role
from games import services as games_services
from games.models import ResultStatus
from tests.factories import DisciplineFactory, FederationFactory, PlayerFactory, UserFactory, grant
from tournaments import services
from tournaments.models import Entry, Pairing, Round, RoundState, Tournament, TournamentState
from tournaments.views.results_inline import result_version

Chooser = Callable[[Pairing], int]
"""Given a pairing, the entry id that wins it."""


def federation_with_admin() -> tuple[Federation, Any, Discipline]:
    federation = FederationFactory()
    admin = UserFactory()
    grant(admin, Role.FEDERATION_ADMIN, federation)
    return federation, admin, DisciplineFactory()


def players(federation: Federation, n: int, *, ratings: bool = True) -> list[Any]:
    return [PlayerFactory(federation=federation, user=UserFactory()) for _ in range(n)]


def tournament(
    n: int,
    format: str,
    *,
    federation: Federation | None = None,
    by: Any = None,
    register: bool = True,
    start: bool = True,
    **settings: Any,
) -> Tournament:
    """A tournament of ``n`` players (ratings falling with the order entered), started."""
    if federation is None:
        federation, by, discipline = federation_with_admin()
    else:
        discipline = DisciplineFactory()
    t = services.create_tournament(
        by=by,
        federation=federation,
        name=f"Test {format} {n}",
        discipline=discipline,
        format=format,
        match_length=settings.pop("match_length", 3),
        **settings,
    )
    if register:
        services.set_state(t, TournamentState.REGISTRATION, by=by)
        for k, player in enumerate(players(federation, n)):
            services.add_entry(t, player, by=by, rating=2000.0 - 10 * k)
    if start:
        services.start_tournament(t, by=by)
    return t


def entry_ids_by_seed(t: Tournament) -> list[int]:
    return list(
        Entry.objects.filter(tournament=t, seed__isnull=False)
        .order_by("seed")
        .values_list("pk", flat=True)
    )


def confirm_result(pairing: Pairing, winner: int, loser_points: int = 1) -> None:
    """Side 1's player reports, side 2's player confirms: the result is official."""
    match = pairing.match
    assert match is not None, f"table {pairing.table} has no match"
    won = match.length
    score = (won, loser_points) if winner == pairing.entry1_id else (loser_points, won)
    report = games_services.submit_report(
        match, by=match.player1.user, score1=score[0], score2=score[1]
    )
    games_services.confirm_report(report, by=match.player2.user)


def override_result(pairing: Pairing, winner: int, by: Any, loser_points: int = 0) -> None:
    match = pairing.match
    assert match is not None
    score = (
        (match.length, loser_points)
        if winner == pairing.entry1_id
        else (loser_points, match.length)
    )
    games_services.override_result(match, by=by, score1=score[0], score2=score[1], reason="test")


def higher_seed(pairing: Pairing) -> int:
    """The better seed wins (lower seed number; unseeded entries last, then by id)."""
    a, b = pairing.entry1, pairing.entry2
    assert b is not None
    key = lambda e: (e.seed is None, e.seed or 0, e.pk)  # noqa: E731
    return a.pk if key(a) < key(b) else b.pk


def play_round(rnd: Round, by: Any, chooser: Chooser = higher_seed, *, close: bool = True) -> Round:
    services.start_round(rnd, by=by)
    for p in rnd.pairings.select_related(
        "match__player1__user", "match__player2__user", "entry1", "entry2"
    ):
        if p.entry2_id is None or p.forfeit_winner is not None:
            continue
        if p.match.result_status != ResultStatus.CONFIRMED:
            confirm_result(p, chooser(p), loser_points=(p.table % max(1, p.match.length)))
    if close:
        services.close_round(rnd, by=by)
    rnd.refresh_from_db()
    return rnd


def run_flight_rounds(
    t: Tournament, by: Any, flight: str = "main", chooser: Chooser = higher_seed, limit: int = 50
) -> list[Round]:
    """Pair and play rounds of ``flight`` until the services say it is complete."""
    from django.core.exceptions import ValidationError

    played = []
    for _ in range(limit):
        try:
            rnd = services.pair_next_round(t, by=by, flight=flight)
        except ValidationError as error:
            if getattr(error, "code", None) == "event_finished":
                return played
            raise
        played.append(play_round(rnd, by, chooser))
    raise AssertionError("the flight did not finish")


def closed_rounds(t: Tournament) -> int:
    return Round.objects.filter(tournament=t, state=RoundState.CLOSED).count()


def run_all_flights(
    t: Tournament, by: Any, flights: list[str], chooser: Chooser = higher_seed, limit: int = 100
) -> dict[str, list[Round]]:
    """Pair and play whichever flight has matches ready, until every flight is complete."""
    from django.core.exceptions import ValidationError

    played: dict[str, list[Round]] = {f: [] for f in flights}
    done: set[str] = set()
    for _ in range(limit):
        progressed = False
        for flight in flights:
            if flight in done:
                continue
            try:
                rnd = services.pair_next_round(t, by=by, flight=flight)
            except ValidationError as error:
                if getattr(error, "code", None) == "event_finished":
                    done.add(flight)
                    continue
                if getattr(error, "code", None) == "not_ready":
                    continue
                raise
            played[flight].append(play_round(rnd, by, chooser))
            progressed = True
        if len(done) == len(flights):
            return played
        assert progressed, f"no flight could be paired: done {sorted(done)}"
    raise AssertionError("the event did not finish")


def inline_result(client: Any, t: Tournament, rnd: Round, table: int, **data: Any) -> Any:
    """Post a table's row of the console's round table as the console draws it (its
    result version the table's current one unless ``version`` says otherwise)."""
    pairing = Pairing.objects.select_related("match").get(round=rnd, table=table)
    data.setdefault("action", "score")
    data.setdefault("version", result_version(pairing))
    address = reverse("tournaments:table_result", args=[t.pk, rnd.pk, table])
    return client.post(address, data, HTTP_ACCEPT_LANGUAGE="en")
