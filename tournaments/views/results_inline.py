"""Result entry in the console's round table (issue 15): each table of a started
round is a row with two score boxes and forfeit buttons, one post per result.

The view is thin: the score goes to ``services.enter_result`` (a table without an
official result) or ``games.services.override_result`` (correcting one, with the
written reason the games app asks for), a forfeit to ``services.forfeit``.  It
answers by sending the director back to the console with the next open table's
first box focused (``?round=<id>&next=<table>``, its row is ``#table-<id>-<table>``), so a round is
entered with the keyboard only: two numbers, Enter, two numbers, Enter...

The row carries the result it was drawn with (``result_version``): when the table's
result changed meanwhile (a player confirmed, another arbiter entered it) the post
is refused and nothing is saved.

The console's bracket takes the same post from each open match box (``mark_boxes``):
the form says ``at=bracket``, and the answer focuses the next open box of that
bracket, in the order the bracket is drawn (``?round=&next=&at=bracket``), rather
than the next table of the round.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from clubs.views.accounts import signed_in
from games import services as games_services
from games.models import Game, Match, MatchState, ResultStatus
from tournaments import adapters, brackets, core, services
from tournaments.formats import flights, registry
from tournaments.models import BOTH_FORFEITED, Pairing, Round, RoundState, Tournament
from tournaments.views.common import error_text, get_managed

# The buttons of a row: the first one is what Enter in a score box presses.
SCORE = "score"
FORFEIT_1 = "forfeit1"  # player 1 forfeits: player 2 wins
FORFEIT_2 = "forfeit2"  # player 2 forfeits: player 1 wins
FORFEIT_BOTH = "both"
ACTIONS = (SCORE, FORFEIT_1, FORFEIT_2, FORFEIT_BOTH)
# Where the form was: the round table (the default) or a box of the console's bracket.
BRACKET = "bracket"


def result_version(pairing: Pairing) -> str:
    """What the row shows of the table's result, as a token: it changes with every new
    report status, score, forfeit or match state (read from rows the console has
    already loaded, so no query)."""
    match = pairing.match
    parts: list[object] = [pairing.forfeit_winner if pairing.forfeit_winner is not None else "-"]
    if match is not None:
        parts += [match.state, match.result_status, match.score1, match.score2, int(match.forfeit)]
    return ".".join("-" if part is None else str(part) for part in parts)


def is_live(match: Match | None) -> bool:
    """A match recorded move by move and under way: its record, not a typed score,
    gives the result."""
    return bool(
        match is not None
        and match.recorded
        and match.state != MatchState.SCHEDULED
        and match.result_status != ResultStatus.CONFIRMED
    )


def takes_score(pairing: Pairing) -> bool:
    """Whether the table's result is typed as a score: it has a match not recorded move
    by move, and no single forfeit (which decides the table whatever the match says:
    it is changed by the forfeit buttons, not by a score)."""
    return (
        pairing.match is not None
        and not is_live(pairing.match)
        and pairing.forfeit_winner not in (1, 2)
    )


def live_scores(matches: list[Match]) -> dict[int, tuple[int, int]]:
    """The running score of recorded matches (their finished games' points, the leader
    capped at the length): one query for all of them, none when there are none."""
    if not matches:
        return {}
    scores: dict[int, list[int]] = {m.pk: [0, 0] for m in matches}
    rows = (
        Game.objects.filter(match_id__in=list(scores), winner__in=(1, 2))
        .values("match_id", "winner")
        .annotate(points=Sum("points"))
    )
    for row in rows:
        scores[row["match_id"]][row["winner"] - 1] += row["points"] or 0
    lengths = {m.pk: m.length for m in matches}
    return {
        pk: ((min(s[0], lengths[pk]), min(s[1], lengths[pk])) if lengths[pk] else (s[0], s[1]))
        for pk, s in scores.items()
    }


def mark_rows(tournament: Tournament, rounds: list[Round], focus: tuple[int, int] | None) -> None:
    """Give each table of a started round what its inline row needs (``inline``, the
    ``version``, ``live_score``, ``autofocus``), in at most one query (live scores)."""
    fmt = registry.for_tournament(tournament)
    live: list[Match] = []
    rows: list[Pairing] = []
    for rnd in rounds:
        if rnd.state != RoundState.STARTED:
            continue
        allow_both = not fmt.is_knockout(rnd.flight)
        for pairing in rnd.pairings.all():
            if pairing.is_bye:
                continue
            pairing.inline = True  # type: ignore[attr-defined]
            pairing.allow_both = allow_both  # type: ignore[attr-defined]
            pairing.version = result_version(pairing)  # type: ignore[attr-defined]
            pairing.decided = adapters.is_decided(pairing)  # type: ignore[attr-defined]
            pairing.takes_score = takes_score(pairing)  # type: ignore[attr-defined]
            pairing.autofocus = focus == (rnd.pk, pairing.table)  # type: ignore[attr-defined]
            if is_live(pairing.match):
                live.append(pairing.match)
            rows.append(pairing)
    scores = live_scores(live)
    for pairing in rows:
        pairing.live_score = scores.get(pairing.match_id or 0)  # type: ignore[attr-defined]


def focus_from(request: HttpRequest) -> tuple[int, int] | None:
    """The table whose first box the console focuses, from ``?round=&next=``."""
    try:
        return int(request.GET["round"]), int(request.GET["next"])
    except (KeyError, ValueError):
        return None


def focus_in_bracket(request: HttpRequest) -> bool:
    """Whether the focused table is to be found in the bracket (``&at=bracket``)
    rather than in the round table: one box of the page takes the focus."""
    return request.GET.get("at") == BRACKET


def mark_boxes(
    sections: list[brackets.Section],
    flight: str,
    rounds: list[Round],
    focus: tuple[int, int] | None,
) -> None:
    """Give each section of a flight's bracket the result forms of its open match boxes
    (``section.entries``): a box whose table is inline (``mark_rows``, started rounds)
    and undecided takes a score, or shows its live score.  No query: the tables are
    the console's rounds."""
    tables = {
        pairing.slot: (rnd, pairing)
        for rnd in rounds
        if rnd.flight == flight
        for pairing in rnd.pairings.all()
        if pairing.slot and getattr(pairing, "inline", False)
    }
    for section in sections:
        entries = []
        for box in section.boxes:
            found = tables.get(box.slot)
            if found is None or found[1].decided:  # type: ignore[attr-defined]
                continue
            rnd, pairing = found
            entries.append(
                {
                    "round": rnd,
                    "pairing": pairing,
                    "left": box.x,
                    "top": box.y,
                    "autofocus": focus == (rnd.pk, pairing.table) and pairing.takes_score,  # type: ignore[attr-defined]
                }
            )
        section.entries = entries  # type: ignore[attr-defined]


class InlineResultForm(forms.Form):
    """A row of the round table: the two scores, the button pressed, the version of
    the result the row was drawn with and an optional reason."""

    action = forms.ChoiceField(choices=[(a, a) for a in ACTIONS], required=False)
    version = forms.CharField(max_length=100)
    score1 = forms.IntegerField(min_value=0, required=False)
    score2 = forms.IntegerField(min_value=0, required=False)
    reason = forms.CharField(max_length=500, required=False)
    at = forms.ChoiceField(choices=[("", ""), (BRACKET, BRACKET)], required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for side, name in enumerate(("score1", "score2"), start=1):
            self.fields[name].error_messages.update(
                min_value=_("The score of player %(side)d is below 0.") % {"side": side},
                invalid=_("The score of player %(side)d is not a number.") % {"side": side},
            )

    def clean(self) -> dict[str, Any]:
        # Whether the scores can end the match is the games service's to say.
        data = super().clean()
        data["action"] = data.get("action") or SCORE
        missing = data.get("score1") is None or data.get("score2") is None
        if data["action"] == SCORE and not self.errors and missing:
            raise forms.ValidationError(_("Type both scores."))
        return data


def _redirect(
    tournament: Tournament, rnd: Round, target: tuple[int, int] | None, at: str = ""
) -> HttpResponse:
    """Back to the console, focusing ``target`` (round id, table) in the round table
    or, ``at`` the bracket, in its box; with none, at the round or the bracket."""
    url = reverse("tournaments:console", args=[tournament.pk])
    if target is None:
        anchor = f"bracket-{rnd.flight}" if at == BRACKET else f"round-{rnd.pk}"
        return redirect(f"{url}#{anchor}")
    # No fragment: a browser skips ``autofocus`` on a page opened at a fragment, and
    # the focused box is scrolled into view anyway.
    fields: dict[str, object] = {"round": target[0], "next": target[1]}
    if at == BRACKET:
        fields["at"] = BRACKET
    return redirect(f"{url}?{urlencode(fields)}")


def _next_open_table(rnd: Round, after: int) -> int | None:
    """The first table after ``after`` still without a result (then from the top)."""
    pairings = list(rnd.pairings.select_related("match").order_by("table"))
    open_tables = [p.table for p in pairings if not p.is_bye and not adapters.is_decided(p)]
    later = [t for t in open_tables if t > after]
    return (later or open_tables or [None])[0]


def _next_open_box(tournament: Tournament, flight: str, after: Pairing) -> tuple[int, int] | None:
    """The first box of the flight's bracket after ``after``'s, in the order the bracket
    is drawn (section, column, top to bottom), that still takes a score (then from the
    top): as (round id, table)."""
    fmt = registry.for_tournament(tournament)
    candidates = [
        p
        for p in Pairing.objects.select_related("match").filter(
            round__tournament=tournament, round__flight=flight, round__state=RoundState.STARTED
        )
        if p.slot and not p.is_bye and not adapters.is_decided(p) and takes_score(p)
    ]
    if not candidates:
        return None
    try:
        matches = fmt.bracket_shape(tournament).matches
    except core.TournamentError:
        matches = {}

    def place(p: Pairing) -> tuple[int, int, int, int]:
        m = matches.get(p.slot)
        if m is None:  # not in the draw as the format knows it: by its table
            return (99, 0, 0, p.table)
        return (flights.section_order(m.section), m.round, m.index, p.table)

    here = place(after)
    ordered = sorted(candidates, key=place)
    later = [p for p in ordered if place(p) > here]
    chosen = (later or ordered)[0]
    return chosen.round_id, chosen.table


def _refuse(
    request: HttpRequest, tournament: Tournament, rnd: Round, table: int, text: str, at: str = ""
) -> HttpResponse:
    messages.error(
        request,
        _("Table %(table)d: %(error)s Nothing was saved.") % {"table": table, "error": text},
    )
    return _redirect(tournament, rnd, (rnd.pk, table), at)


@signed_in
@require_POST
def table_result(request: HttpRequest, pk: int, rid: int, table: int) -> HttpResponse:
    """One result of a round's table, typed in the console's row (see the module)."""
    tournament = get_managed(request, pk)
    rnd = Round.objects.filter(pk=rid, tournament=tournament).first()
    if rnd is None:
        raise Http404(_("No such round."))
    rnd.tournament = tournament
    pairing = (
        Pairing.objects.select_related("entry1__player", "entry2__player", "match")
        .filter(round=rnd, table=table)
        .first()
    )
    if pairing is None or pairing.is_bye:
        raise Http404(_("No such table."))
    # Where the answer focuses: the bracket when the form was one of its boxes.
    at = BRACKET if request.POST.get("at") == BRACKET else ""
    if rnd.state != RoundState.STARTED:
        return _refuse(
            request,
            tournament,
            rnd,
            table,
            _("Round %(number)d is not being played.") % {"number": rnd.number},
            at,
        )
    form = InlineResultForm(request.POST)
    if not form.is_valid():
        texts = [str(text) for errors in form.errors.values() for text in errors]
        return _refuse(request, tournament, rnd, table, " ".join(texts), at)
    data = form.cleaned_data
    if data["version"] != result_version(pairing):
        return _refuse(
            request, tournament, rnd, table, _("Its result was changed meanwhile; check it."), at
        )
    try:
        done = _act(request, pairing, data)
    except (ValidationError, PermissionDenied) as error:
        return _refuse(request, tournament, rnd, table, error_text(error), at)
    messages.success(request, done)
    if at == BRACKET:
        return _redirect(tournament, rnd, _next_open_box(tournament, rnd.flight, pairing), at)
    following = _next_open_table(rnd, table)
    return _redirect(tournament, rnd, None if following is None else (rnd.pk, following))


def _act(request: HttpRequest, pairing: Pairing, data: dict[str, Any]) -> str:
    """Hand the row's result to the service that records it; the message to show."""
    action, reason = data["action"], data["reason"].strip()
    values: dict[str, Any] = {"table": pairing.table}
    if action != SCORE:
        sides = {FORFEIT_1: pairing.entry2_id, FORFEIT_2: pairing.entry1_id, FORFEIT_BOTH: None}
        winner = sides[action]
        if winner is None:
            reason = reason or _("Neither player played (entered at the console).")
            done = _("Table %(table)d: both players forfeit.")
        else:
            loser = pairing.entry1 if action == FORFEIT_1 else pairing.entry2
            reason = reason or _("%(player)s did not play (entered at the console).") % {
                "player": loser.player  # type: ignore[union-attr]
            }
            values["player"] = (pairing.entry2 if action == FORFEIT_1 else pairing.entry1).player  # type: ignore[union-attr]
            done = _("Table %(table)d: %(player)s wins by forfeit.")
        services.forfeit(pairing, by=request.user, winner=winner, reason=reason)
        return done % values
    score1, score2 = data["score1"], data["score2"]
    values.update(score1=score1, score2=score2)
    match = pairing.match
    if match is None:
        raise ValidationError(_("This table has no match to enter."))
    if match.result_status == ResultStatus.CONFIRMED or pairing.forfeit_winner == BOTH_FORFEITED:
        # Correcting an official result: an override, which keeps the earlier one.
        if not reason:
            raise ValidationError(_("Correcting an official result needs a reason."))
        games_services.override_result(
            match, by=request.user, score1=score1, score2=score2, reason=reason
        )
        return _("Table %(table)d: corrected to %(score1)d–%(score2)d.") % values
    report = services.enter_result(pairing, by=request.user, score1=score1, score2=score2)
    if report.status == "confirmed":
        return _("Table %(table)d: %(score1)d–%(score2)d is official.") % values
    # The organizer plays at this table: their opponent confirms.
    return (
        _("Table %(table)d: %(score1)d–%(score2)d is reported; your opponent confirms it.") % values
    )
