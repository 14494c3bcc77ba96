"""What the console offers next, and how it names rounds.

``next_steps`` is the one place that decides which buttons the console shows: the
next step the event's state allows (the format says whether a round can be paired,
by the rule pairing refuses by), final steps asking to be confirmed.  ``confirmation``
is the page a final step posted without ``confirm=1`` gets.  ``round_name`` and
``round_label`` name a round as every page does (the format's ``round_title``);
``pair_label`` names the round a knock-out is about to pair ("Pair the semi-finals"),
which no page titles yet.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy

from tournaments import core
from tournaments.formats import flights, registry
from tournaments.formats.base import (
    TournamentFormat,
    knockout_round_name,
    knockout_rounds_left,
    ready_to_pair,
)
from tournaments.models import (
    Entry,
    Pairing,
    Round,
    RoundState,
    StandingsSnapshot,
    Tournament,
    TournamentState,
)
from tournaments.views.common import console_url

# What a final step does, said before it is done (the console asks to confirm it).
FINISH_WARNING = _lazy(
    "The tournament ends: no more rounds, results or entries, and the final "
    "standings stand. Finishing cannot be undone."
)
PUBLISH_WARNING = _lazy(
    "Everyone sees these standings, and the silent rounds they cover become public. "
    "Publishing cannot be undone."
)
WITHDRAW_WARNING = _lazy(
    "%(player)s is paired in no later round and loses the matches still to play by "
    "forfeit. A withdrawal can be undone until the next round is paired."
)


def mark_superseded(snapshots: list[StandingsSnapshot]) -> None:
    """Set ``superseded`` on each of ``snapshots`` (latest first): standings left
    unpublished under later published ones (computed while another round of the same
    wave was open), whose publishing would change nothing public."""
    later_published = False
    for snapshot in snapshots:
        snapshot.superseded = snapshot.published_at is None and later_published
        later_published = later_published or snapshot.published_at is not None


def next_steps(
    tournament: Tournament,
    rounds: list[Round],
    snapshots: list[StandingsSnapshot],
    entries: list[Entry],
) -> list[dict[str, Any]]:
    """The buttons that move the tournament on, the most likely one first: only the
    steps that can be taken now (no "pair round 4" after the last planned round)."""
    steps: list[dict[str, Any]] = []
    state = tournament.state

    def to_state(target: str, label: str, confirm: str = "") -> None:
        steps.append(
            {
                "action": reverse("tournaments:state", args=[tournament.pk]),
                "fields": {"state": target, "from_state": state},
                "label": label,
                "confirm": confirm,
            }
        )

    if state == TournamentState.DRAFT:
        to_state(TournamentState.REGISTRATION, _("Open registration"))
    elif state == TournamentState.REGISTRATION:
        to_state(TournamentState.CHECK_IN, _("Open check-in"))
        to_state(TournamentState.RUNNING, _("Start the tournament"))
        to_state(TournamentState.DRAFT, _("Back to draft"))
    elif state == TournamentState.CHECK_IN:
        to_state(TournamentState.RUNNING, _("Start the tournament"))
        to_state(TournamentState.REGISTRATION, _("Reopen registration"))
    elif state == TournamentState.RUNNING:
        open_rounds = [r for r in rounds if r.state != RoundState.CLOSED]
        for rnd in open_rounds:
            if rnd.state == RoundState.PAIRED:
                steps.append(
                    {
                        "action": reverse("tournaments:round_start", args=[tournament.pk, rnd.pk]),
                        "fields": {"round_state": rnd.state},
                        "label": round_label(_("Start round %(number)d"), rnd),
                    }
                )
            else:
                steps.append(
                    {
                        "action": reverse("tournaments:round_close", args=[tournament.pk, rnd.pk]),
                        "fields": {"round_state": rnd.state},
                        "label": round_label(_("Close round %(number)d"), rnd),
                    }
                )
        unpublished = [s for s in snapshots if s.published_at is None and not s.superseded]
        if not open_rounds and unpublished:
            latest = unpublished[0]
            steps.append(
                {
                    "action": reverse(
                        "tournaments:standings_publish", args=[tournament.pk, latest.pk]
                    ),
                    "fields": {"digest": latest.results_digest},
                    "label": _("Publish the standings after round %(number)d")
                    % {"number": latest.after_round},
                    "confirm": str(PUBLISH_WARNING),
                }
            )
        fmt = registry.for_tournament(tournament)
        pairings = [p for r in rounds for p in r.pairings.all()]
        paired_flights = fmt.paired_flights(tournament)
        several = len(paired_flights) > 1
        if several:
            busy = {r.flight for r in open_rounds}
        else:  # no new round while a round is open, whatever flight the format paired
            busy = set(paired_flights) if open_rounds else set()
        pairable = []
        for flight in paired_flights:
            # The format's own rule for "no more rounds" (what pairing would answer).
            if flight in busy or not fmt.can_pair_next(tournament, flight, entries, pairings):
                continue
            pairable.append(flight)
            named = pair_label(fmt, tournament, flight, entries, pairings)
            if named is not None:
                text = named
            elif fmt.next_round_number_known:
                played = sum(1 for r in rounds if r.flight == flight)
                text = _("Pair round %(number)d") % {"number": played + 1}
            else:
                text = _("Pair the next round")
            if several:
                text = f"{text} ({flights.label(flight)})"
            steps.append(
                {
                    "action": reverse("tournaments:round_pair", args=[tournament.pk]),
                    "fields": {"flight": flight, "seen": len(rounds)},
                    "label": text,
                }
            )
        if not open_rounds:
            to_state(TournamentState.FINISHED, _("Finish the tournament"), str(FINISH_WARNING))
            if not pairable or fmt.looks_finished(tournament, rounds):
                # The planned rounds are played: finishing comes first.
                steps.insert(0, steps.pop())
    for k, step in enumerate(steps):
        step["primary"] = k == 0
        step.setdefault("confirm", "")
    return steps


def pair_label(
    fmt: TournamentFormat,
    tournament: Tournament,
    flight: str,
    entries: Sequence[Entry],
    pairings: Sequence[Pairing],
) -> str | None:
    """The button pairing a bracket flight's next round, named by what that round is
    ("Pair the quarter-finals", "Pair the final"): the stage of the matches it would
    pair, so the name is the one ``round_title`` gives the round once paired.  None
    where rounds keep their number (not a knock-out, a flight drawn in several
    sections such as a double elimination's winners' and losers' brackets, a draw the
    pairing will refuse).  Asked once a request (the console's next steps), of the
    rows the caller has loaded: the draw is replayed, no query (but for a format that
    finds which flight it pairs)."""
    if not fmt.has_bracket or not fmt.is_knockout(flight):
        return None
    flight = fmt.flight_to_pair(tournament, flight)
    if not fmt.is_knockout(flight):
        return None  # a group stage first
    try:
        bracket = fmt.load_bracket(tournament, entries, pairings)
    except core.TournamentError:
        return None
    ready = ready_to_pair(bracket, pairings, flight)
    final = bracket.finals.get(flight)
    if not ready or final is None:
        return None
    if any(bracket.matches[mid].section == flights.GRAND_FINAL for mid in ready):
        return _("Pair the grand final")
    if len({m.section for m in bracket.matches.values() if m.flight == flight}) > 1:
        return None
    # Counted as round_title counts it, so the button and the round's title agree.
    left = knockout_rounds_left(bracket, flight, ready[0])
    if left is None:
        return None
    if left <= 0:
        return _("Pair the final")
    if left == 1:
        return _("Pair the semi-finals")
    if left == 2:
        return _("Pair the quarter-finals")
    return _("Pair the 1/%(fraction)d finals") % {"fraction": 2**left}


def round_name(rnd: Round) -> str:
    """The round's heading, as every page names it (the format's ``round_title``):
    "Round 3", "Semi-final", "Quarter-final · Consolation"."""
    tournament = rnd.tournament
    return registry.for_tournament(tournament).round_title(tournament, rnd.flight, rnd.number)


def confirmation(
    request: HttpRequest, tournament: Tournament, *, question: str, warning: str, label: str
) -> HttpResponse | None:
    """A final or destructive step posted without ``confirm=1``: a page that says what
    will happen and posts the same form again with the confirmation (no script needed;
    the console's own forms ask inline and carry ``confirm=1``).  None once confirmed."""
    if request.POST.get("confirm") == "1":
        return None
    fields = [
        (name, value)
        for name, value in request.POST.items()
        if name not in ("csrfmiddlewaretoken", "confirm")
    ]
    return render(
        request,
        "tournaments/console_confirm.html",
        {
            "tournament": tournament,
            "question": question,
            "warning": warning,
            "label": label,
            "action": request.path,
            "fields": fields,
            "back": console_url(tournament),
        },
    )


def round_label(text: str, rnd: Round) -> str:
    """ "Round 3", "Round 3 (Semi-final)" or "Round 3 (Consolation)": what the round is
    in a bracket, and its flight unless it is the main flight where the organizer
    pairs no other."""
    label = text % {"number": rnd.number}
    fmt = registry.for_tournament(rnd.tournament)
    about = [knockout_round_name(fmt, rnd.tournament, rnd.flight, rnd.number)]
    paired = fmt.paired_flights(rnd.tournament)
    if not (rnd.flight == flights.MAIN and len(paired) == 1):
        about.append(flights.title(rnd.flight))
    said = [str(part) for part in about if part]
    return f"{label} ({' · '.join(said)})" if said else label
