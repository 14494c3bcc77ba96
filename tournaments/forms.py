"""Forms of the organizer console: a tournament's settings, entries, seeds,
pairings, forfeits and staff.

Forms only read and check what was typed; every change goes through
``tournaments.services``.  Forms that act on something the page showed carry
its version (a state, a list of ids), so a stale page is told apart from a
wrong one.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from clubs import csv_io, permissions
from clubs.forms import OPTION_FIELDS, option_fields, options_from, show_options
from clubs.models import Club, Discipline, Federation, Role
from engine.rules.variants import VARIANTS
from games.models import ClockMode
from tournaments.core import UNAVAILABLE_CODES, offered_codes
from tournaments.formats import flights, registry
from tournaments.models import TieBreakerLot, Tournament, default_tie_breaks
from tournaments.services.entries import BULK_MAX_LINES, ListLine
from tournaments.services.setup import SETTINGS_FIELDS

MAX_LENGTH = 99

TIEBREAK_HELP = {
    "WIN": _("match wins"),
    "WON": _("matches won over the board (no byes, no forfeits)"),
    "DE": _("direct encounter among the tied players"),
    "BH": _("Buchholz: sum of the opponents' scores"),
    "BH-C1": _("Buchholz cut 1: without the lowest opponent score"),
    "BH-M1": _("median Buchholz: without the highest and the lowest"),
    "SB": _("Sonneborn-Berger: sum of the scores of the opponents beaten"),
    "PS": _("progressive score: sum of the running scores"),
    "KS": _("Koya: wins against opponents with at least 50%"),
    "PD": _("points difference: own minus opponents' match points"),
    "PW": _("points won: own match points"),
    "ARO": _("average rating of the opponents"),
    "PR": _("average error rate (recorded and analysed matches)"),
}
# Shown by a tie-break the tournament chose before it stopped being offered.
UNAVAILABLE_NOTE = _("not computed while no match is analysed: it breaks no tie")

# Settings of the form that go to the services under the model's field names (the
# host club is chosen with the federation, in the ``host`` field).
SETTINGS = tuple(name for name in SETTINGS_FIELDS if name != "club")


def tiebreak_field(code: str) -> str:
    return "tb_" + code.replace("-", "_").lower()


# --- Match lengths: a default plus rows per flight and round.


class LengthRowForm(forms.Form):
    flight = forms.ChoiceField(label=_("Flight"), choices=flights.LENGTH_CHOICES, required=False)
    round = forms.CharField(
        label=_("Round"),
        max_length=6,
        required=False,
        help_text=_('A round number, "final", or empty for every round of the flight.'),
        widget=forms.TextInput(attrs={"size": 6, "inputmode": "text"}),
    )
    length = forms.IntegerField(
        label=_("Match length"),
        min_value=1,
        max_value=MAX_LENGTH,
        required=False,
        widget=forms.NumberInput(attrs={"size": 4}),
    )

    def clean_round(self) -> str:
        value = (self.cleaned_data.get("round") or "").strip().lower()
        # isascii: "²" is a digit to isdigit(), not to int().
        if value in ("", "final") or (value.isascii() and value.isdigit() and int(value) >= 1):
            return value
        raise forms.ValidationError(_('Write a round number, "final", or leave it empty.'))

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if cleaned.get("round") and not cleaned.get("length"):
            self.add_error("length", _("Give the match length of this round."))
        return cleaned


class BaseLengthRows(forms.BaseFormSet):
    def clean(self) -> None:
        if any(self.errors):
            return
        seen: set[tuple[str, str]] = set()
        for form in self.forms:
            data = form.cleaned_data
            if not data or not data.get("length"):
                continue
            key = (data.get("flight") or flights.MAIN, data.get("round") or "")
            if key in seen:
                raise forms.ValidationError(
                    _("Match lengths: the flight %(flight)s, round %(round)s is listed twice.")
                    % {"flight": key[0], "round": key[1] or _("every round")}
                )
            seen.add(key)

    def as_json(self) -> dict[str, Any]:
        """The rows as ``Tournament.match_lengths``: {"main": {"1": 9, "final": 13}, "consolation": 7}."""
        per_flight: dict[str, dict[str, int]] = {}
        for form in self.forms:
            data = getattr(form, "cleaned_data", None)
            if not data or not data.get("length"):
                continue
            flight = data.get("flight") or flights.MAIN
            per_flight.setdefault(flight, {})[data.get("round") or "default"] = data["length"]
        out: dict[str, Any] = {}
        for flight, rows in per_flight.items():
            out[flight] = rows["default"] if list(rows) == ["default"] else rows
        return out


LengthRows = forms.formset_factory(LengthRowForm, formset=BaseLengthRows, extra=3, max_num=30)


def length_rows_initial(match_lengths: dict[str, Any] | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for flight, value in (match_lengths or {}).items():
        if isinstance(value, int):
            rows.append({"flight": flight, "round": "", "length": value})
        elif isinstance(value, dict):
            for key, length in value.items():
                rows.append(
                    {"flight": flight, "round": "" if key == "default" else key, "length": length}
                )
    return rows


# --- The tournament's settings


class TournamentForm(forms.Form):
    """Create a tournament (with its host) or change its settings."""

    host = forms.ChoiceField(
        label=_("Organized by"),
        help_text=_("The federation, or one of its clubs."),
    )
    name = forms.CharField(label=_("Name of the tournament"), max_length=200)
    slug = forms.SlugField(
        label=_("Web address"),
        max_length=80,
        required=False,
        help_text=_("The last part of the public page's address; made from the name when empty."),
    )
    discipline = forms.ModelChoiceField(
        queryset=Discipline.objects.order_by("name"), label=_("Discipline")
    )
    format = forms.ChoiceField(
        label=_("Format"), choices=registry.choices, initial=registry.DEFAULT
    )
    starts_on = forms.DateField(
        label=_("Starts on"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    rounds_planned = forms.IntegerField(
        label=_("Rounds"),
        min_value=1,
        max_value=99,
        required=False,
        help_text=_("Swiss and truncated round robin."),
    )
    max_losses = forms.IntegerField(
        label=_("Eliminated after this many losses"),
        min_value=1,
        max_value=20,
        required=False,
        help_text=_("Swiss until N losses; empty for a fixed number of rounds."),
    )
    groups = forms.IntegerField(label=_("Groups"), min_value=1, max_value=64, required=False)
    qualifiers_per_group = forms.IntegerField(
        label=_("Qualifiers per group"), min_value=1, max_value=32, required=False
    )
    progressive_consolation = forms.BooleanField(
        label=_("Progressive consolation"),
        required=False,
        help_text=_("Losers of later main rounds enter later consolation rounds."),
    )
    last_chance = forms.BooleanField(label=_("Last-chance flight"), required=False)
    seeding = forms.ChoiceField(
        label=_("Seeding"),
        choices=[("rating", _("by rating")), ("manual", _("by hand"))],
        initial="rating",
    )
    match_length = forms.IntegerField(
        label=_("Match length"),
        min_value=1,
        max_value=MAX_LENGTH,
        initial=7,
        help_text=_("Points to win, unless a row below says otherwise."),
    )
    recorded_matches = forms.BooleanField(
        label=_("Matches recorded move by move"),
        required=False,
        help_text=_("Otherwise the players report the final score."),
    )
    clock_mode = forms.ChoiceField(label=_("Clock"), choices=ClockMode.choices, initial="none")
    reserve_minutes = forms.IntegerField(
        label=_("Reserve (minutes)"), min_value=0, max_value=600, required=False
    )
    per_point_minutes = forms.IntegerField(
        label=_("Reserve per match point (minutes)"), min_value=0, max_value=60, required=False
    )
    move_seconds = forms.IntegerField(
        label=_("Delay or increment per move (seconds)"),
        min_value=0,
        max_value=600,
        required=False,
    )
    bye_is_win = forms.BooleanField(label=_("A bye counts as a win"), required=False, initial=True)
    remaining_ties = forms.ChoiceField(
        label=_("Remaining ties"), choices=TieBreakerLot.choices, initial=TieBreakerLot.SHARE
    )
    is_public = forms.BooleanField(
        label=_("Public page"),
        required=False,
        initial=True,
        help_text=_("Listed on the federation's page once registration opens."),
    )
    publish_pairings = forms.BooleanField(label=_("Publish pairings"), required=False, initial=True)
    publish_results = forms.BooleanField(
        label=_("Publish results"),
        required=False,
        initial=True,
        help_text=_("A silent round keeps its results hidden until its standings are published."),
    )
    publish_standings = forms.BooleanField(
        label=_("Publish standings as soon as they are computed"),
        required=False,
        initial=True,
        help_text=_("Otherwise you publish each round's standings from the console."),
    )
    qualifies_from = forms.ModelChoiceField(
        queryset=Tournament.objects.none(),
        label=_("Players qualify from"),
        required=False,
        help_text=_("The top places of that tournament are entered here."),
    )
    qualifying_places = forms.IntegerField(
        label=_("Qualifying places"), min_value=1, max_value=512, required=False
    )
    webhook_url = forms.URLField(
        label=_("Webhook URL"),
        required=False,
        assume_scheme="https",
        help_text=_("Told of started rounds and published standings (signed with the secret)."),
    )

    def __init__(
        self,
        *args: Any,
        user: Any,
        tournament: Tournament | None = None,
        sources: Any = None,
        **kwargs: Any,
    ) -> None:
        self.user = user
        self.tournament = tournament
        if tournament is not None and "initial" not in kwargs:
            kwargs["initial"] = initial_from(tournament)
        elif "initial" not in kwargs:
            kwargs["initial"] = {
                tiebreak_field(code): place
                for place, code in enumerate(default_tie_breaks(), start=1)
            }
        super().__init__(*args, **kwargs)
        # An unavailable tie-break is listed only for a tournament that has it already.
        self.tiebreak_codes = offered_codes(
            tournament.tie_breaks or () if tournament is not None else ()
        )
        for code in self.tiebreak_codes:
            help_text: Any = TIEBREAK_HELP.get(code, "")
            if code in UNAVAILABLE_CODES:
                help_text = format_lazy("{} ({})", help_text, UNAVAILABLE_NOTE)
            self.fields[tiebreak_field(code)] = forms.IntegerField(
                label=code,
                help_text=help_text,
                min_value=1,
                max_value=len(self.tiebreak_codes),
                required=False,
                widget=forms.NumberInput(attrs={"class": "order", "inputmode": "numeric"}),
            )
        # The organizer's house rules for a variant with options (Soldiers' army and
        # placement): RULES.md's defaults, or the tournament's own.
        self.fields.update(option_fields())
        if tournament is not None:
            show_options(self, tournament.variant_options)
        # Tournaments whose top places may qualify into this one (the view's choice).
        if sources is not None:
            self.fields["qualifies_from"].queryset = sources
        if tournament is None:
            self.fields["host"].choices = host_choices(user)
        else:
            del self.fields["host"]
        self.lengths = LengthRows(
            args[0] if args else kwargs.get("data"),
            prefix="lengths",
            initial=None if args or kwargs.get("data") else self._length_initial(),
        )

    def _length_initial(self) -> list[dict[str, Any]]:
        if self.tournament is None:
            return []
        return length_rows_initial(self.tournament.match_lengths)

    # -- fields shown as groups by the template

    def tiebreak_fields(self) -> list[forms.BoundField]:
        return [self[tiebreak_field(code)] for code in self.tiebreak_codes]

    def is_valid(self) -> bool:
        valid = super().is_valid()
        return self.lengths.is_valid() and valid

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        positions: dict[int, str] = {}
        for code in self.tiebreak_codes:
            position = cleaned.get(tiebreak_field(code))
            if position is None:
                continue
            if position in positions:
                self.add_error(
                    tiebreak_field(code),
                    _(
                        "%(code)s and %(other)s both have the place %(place)d in the tie-break order."
                    )
                    % {"code": code, "other": positions[position], "place": position},
                )
            positions[position] = code
        cleaned["tie_breaks"] = [positions[p] for p in sorted(positions)]
        for name in ("reserve_minutes", "per_point_minutes", "move_seconds"):
            cleaned[name] = cleaned.get(name) or 0
        if cleaned.get("clock_mode") not in (None, ClockMode.NONE) and not (
            cleaned["reserve_minutes"] or cleaned["per_point_minutes"]
        ):
            self.add_error("reserve_minutes", _("A clock needs a reserve of time."))
        if cleaned.get("qualifies_from") and not cleaned.get("qualifying_places"):
            self.add_error("qualifying_places", _("Say how many places qualify."))
        discipline = cleaned.get("discipline")
        if discipline is not None:
            options = options_from(self, VARIANTS.get(discipline.variant))
            if options is not None:
                cleaned["variant_options"] = options
        return cleaned

    def option_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in OPTION_FIELDS]

    # -- what goes to the services

    def chosen_host(self) -> tuple[Federation, Club | None]:
        kind, _sep, pk = self.cleaned_data["host"].partition(":")
        if kind == "club":
            club = Club.objects.select_related("federation").get(pk=int(pk))
            return club.federation, club
        return Federation.objects.get(pk=int(pk)), None

    def settings(self) -> dict[str, Any]:
        """Every setting, under the model's field names."""
        data = self.cleaned_data
        clocked = data["clock_mode"] != ClockMode.NONE
        values: dict[str, Any] = {
            name: data.get(name) for name in SETTINGS if name in data and name in self.fields
        }
        values["tie_breaks"] = data["tie_breaks"]
        values["match_lengths"] = self.lengths.as_json()
        values["clock_reserve_seconds"] = 60 * data["reserve_minutes"] if clocked else 0
        values["clock_per_point_seconds"] = 60 * data["per_point_minutes"] if clocked else 0
        values["clock_move_seconds"] = data["move_seconds"] if clocked else 0
        values["webhook_url"] = data.get("webhook_url") or ""
        values["variant_options"] = data.get("variant_options", {})
        if not values.get("slug"):
            values.pop("slug", None)
        return values

    def changed_settings(self) -> dict[str, Any]:
        """The settings that differ from the tournament's (for ``update_tournament``)."""
        assert self.tournament is not None
        current = initial_from(self.tournament)
        current["match_lengths"] = self.tournament.match_lengths or {}
        current["tie_breaks"] = list(self.tournament.tie_breaks or [])
        current["clock_reserve_seconds"] = self.tournament.clock_reserve_seconds
        current["clock_per_point_seconds"] = self.tournament.clock_per_point_seconds
        current["clock_move_seconds"] = self.tournament.clock_move_seconds
        current["slug"] = self.tournament.slug
        return {
            name: value
            for name, value in self.settings().items()
            if _comparable(current.get(name)) != _comparable(value)
        }


def _comparable(value: Any) -> Any:
    if isinstance(value, Tournament | Discipline):
        return value.pk
    if value == "":
        return None
    return value


def initial_from(tournament: Tournament) -> dict[str, Any]:
    initial: dict[str, Any] = {
        name: getattr(tournament, name)
        for name in SETTINGS
        if name not in ("discipline", "qualifies_from", "match_lengths", "tie_breaks")
        and not name.startswith("clock_")
    }
    initial["clock_mode"] = tournament.clock_mode
    initial["discipline"] = tournament.discipline_id
    initial["qualifies_from"] = tournament.qualifies_from_id
    initial["reserve_minutes"] = tournament.clock_reserve_seconds // 60
    initial["per_point_minutes"] = tournament.clock_per_point_seconds // 60
    initial["move_seconds"] = tournament.clock_move_seconds
    for place, code in enumerate(tournament.tie_breaks or [], start=1):
        initial[tiebreak_field(code)] = place
    return initial


def host_choices(user: Any) -> list[tuple[str, Any]]:
    """Federations and clubs where ``user`` may create a tournament (``tournament.create``)."""
    choices: list[tuple[str, Any]] = []
    for federation in permissions.admin_federations(user).order_by("name"):
        if permissions.can(user, "tournament.create", federation):
            choices.append((f"federation:{federation.pk}", federation.name))
    clubs = permissions.admin_clubs(user).select_related("federation").order_by("name")
    for club in clubs:
        if permissions.can(user, "tournament.create", club):
            choices.append((f"club:{club.pk}", f"{club.name} ({club.federation.name})"))
    return choices


# --- Entries


class PlayerSearchForm(forms.Form):
    q = forms.CharField(
        label=_("Find a player"),
        max_length=100,
        required=False,
        widget=forms.SearchInput(attrs={"placeholder": _("Name, in either script")}),
    )


class AddEntryForm(forms.Form):
    player = forms.IntegerField(widget=forms.HiddenInput)
    q = forms.CharField(max_length=100, required=False, widget=forms.HiddenInput)


class SeedsForm(forms.Form):
    """A seed per entry; ``entries`` (the ids the page listed) detects a stale page."""

    entries = forms.CharField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, entries: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.entry_list = entries
        self.fields["entries"].initial = ",".join(str(e.pk) for e in entries)
        for entry in entries:
            self.fields[f"seed_{entry.pk}"] = forms.IntegerField(
                label=str(entry.player),
                min_value=1,
                max_value=9999,
                required=False,
                initial=entry.seed,
                widget=forms.NumberInput(attrs={"class": "seed", "inputmode": "numeric"}),
            )

    def seed_fields(self) -> list[tuple[Any, forms.BoundField]]:
        return [(e, self[f"seed_{e.pk}"]) for e in self.entry_list]

    def is_stale(self) -> bool:
        shown = self.data.get("entries", "")
        return shown != ",".join(str(e.pk) for e in self.entry_list)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        seen: dict[int, str] = {}
        for entry in self.entry_list:
            seed = cleaned.get(f"seed_{entry.pk}")
            if seed is None:
                continue
            if seed in seen:
                self.add_error(
                    f"seed_{entry.pk}",
                    _("Seed %(seed)d is given to %(a)s and %(b)s.")
                    % {"seed": seed, "a": seen[seed], "b": entry.player},
                )
            seen[seed] = str(entry.player)
        return cleaned

    def seeds(self) -> dict[int, int]:
        return {
            e.pk: self.cleaned_data[f"seed_{e.pk}"]
            for e in self.entry_list
            if self.cleaned_data.get(f"seed_{e.pk}") is not None
        }


# --- Pairings


BYE = "bye"


class PairingsForm(forms.Form):
    """The tables of a round, each with two selects (the second may be a bye).

    ``version`` is the pairings the page showed; the service checks the rest
    (no player twice, no player left out)."""

    version = forms.CharField(widget=forms.HiddenInput)

    def __init__(self, *args: Any, round: Any, pairings: list[Any], entries: list[Any], **kwargs):  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.round = round
        self.pairings = pairings
        self.fields["version"].initial = pairings_version(round, pairings)
        names = [(str(e.pk), str(e.player)) for e in entries]
        blank = [("", "—")]
        tables = max(len(pairings), 1) + 1
        by_table = {p.table: p for p in pairings}
        for table in range(1, tables + 1):
            pairing = by_table.get(table)
            self.fields[f"t{table}_1"] = forms.ChoiceField(
                label=_("Table %(table)d, player 1") % {"table": table},
                choices=blank + names,
                required=False,
                initial=str(pairing.entry1_id) if pairing else "",
            )
            self.fields[f"t{table}_2"] = forms.ChoiceField(
                label=_("Table %(table)d, player 2") % {"table": table},
                choices=[*blank, (BYE, _("bye")), *names],
                required=False,
                initial=(str(pairing.entry2_id) if pairing.entry2_id else BYE) if pairing else "",
            )
        self.table_count = tables

    def tables(self) -> list[tuple[int, forms.BoundField, forms.BoundField]]:
        return [(t, self[f"t{t}_1"], self[f"t{t}_2"]) for t in range(1, self.table_count + 1)]

    def is_stale(self) -> bool:
        return self.data.get("version") != pairings_version(self.round, self.pairings)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        pairs: list[tuple[int, int | None]] = []
        for table in range(1, self.table_count + 1):
            first, second = cleaned.get(f"t{table}_1"), cleaned.get(f"t{table}_2")
            if not first and not second:
                continue
            if not first:
                self.add_error(
                    f"t{table}_1", _("Table %(table)d has no first player.") % {"table": table}
                )
                continue
            if not second:
                self.add_error(
                    f"t{table}_2",
                    _("Table %(table)d needs a second player or a bye.") % {"table": table},
                )
                continue
            pairs.append((int(first), None if second == BYE else int(second)))
        cleaned["pairs"] = pairs
        return cleaned


def pairings_version(round: Any, pairings: list[Any]) -> str:
    body = ";".join(f"{p.table}:{p.entry1_id}:{p.entry2_id or 0}" for p in pairings)
    return f"{round.pk}:{round.state}:{body}"


# --- Staff


class StaffForm(forms.Form):
    username = forms.CharField(
        label=_("User name"),
        max_length=150,
        widget=forms.TextInput(
            attrs={
                "placeholder": _("User name"),
                "aria-label": _("User name"),
                "autocomplete": "off",
            }
        ),
    )
    role = forms.ChoiceField(
        label=_("Role"),
        choices=[(Role.ORGANIZER, _("organizer")), (Role.ARBITER, _("arbiter"))],
    )

    def clean_username(self) -> Any:
        name = self.cleaned_data["username"].strip()
        user = get_user_model().objects.filter(username__iexact=name, is_active=True).first()
        if user is None:
            raise forms.ValidationError(_("No active user is called %(name)s.") % {"name": name})
        return user


# --- Registration at scale (views.registration)

_RATING = re.compile(r"^\d{1,5}(?:[.,]\d+)?$")
_NAME_HEADERS = {"name", "player", "имя", "игрок", "фио", "name native", "name latin"}
_CLUB_HEADERS = {"club", "клуб"}
_RATING_HEADERS = {"rating", "рейтинг"}


def _rating(text: str) -> float | None:
    text = text.strip()
    return float(text.replace(",", ".")) if _RATING.match(text) else None


def parse_pasted_list(text: str) -> list[ListLine]:
    """One player a line: "name", "name; club", "name; club; rating" or "name, rating"
    (a comma before a number; a comma inside a name stays part of it)."""
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        raw = raw.strip()
        if not raw:
            continue
        club, rating = "", None
        if ";" in raw:
            name, *rest = [part.strip() for part in raw.split(";")]
            for part in rest:
                if rating is None and _rating(part) is not None:
                    rating = _rating(part)
                elif not club:
                    club = part
        else:
            name, _sep, tail = raw.rpartition(",")
            rating = _rating(tail) if name else None
            if rating is None:
                name = raw
        lines.append(ListLine(number, " ".join(name.split())[:200], club[:200], rating))
        if len(lines) > BULK_MAX_LINES:
            break
    return lines


def parse_list_csv(data: bytes) -> list[ListLine]:
    """A CSV with a header line naming its columns: a name column (name / имя / игрок),
    optionally club and rating; comma, semicolon or tab separated, in the encodings
    the federation's player import reads (clubs.csv_io)."""
    try:
        table = csv_io.read_table(data)
    except csv_io.FileError as error:
        raise forms.ValidationError(str(error)) from error
    header = [csv_io.normalize_header(cell) for cell in table.header]

    def column(names: set[str]) -> int | None:
        return next((k for k, cell in enumerate(header) if cell in names), None)

    name_at, club_at, rating_at = (
        column(_NAME_HEADERS),
        column(_CLUB_HEADERS),
        column(_RATING_HEADERS),
    )
    if name_at is None:
        raise forms.ValidationError(
            _("The CSV needs a header line with a “name” column (also: club, rating).")
        )
    lines = []
    for number, cells in table.records:

        def cell(at: int | None, cells: list[str] = cells) -> str:
            return cells[at].strip() if at is not None and at < len(cells) else ""

        name = " ".join(cell(name_at).split())
        if not name:
            continue
        rating_text = cell(rating_at)
        rating = _rating(rating_text)
        if rating_text and rating is None:
            raise forms.ValidationError(
                _("Line %(line)d: “%(rating)s” is not a rating.")
                % {"line": number, "rating": rating_text}
            )
        lines.append(ListLine(number, name[:200], cell(club_at)[:200], rating))
        if len(lines) > BULK_MAX_LINES:
            break
    return lines


def _too_many(lines: list[ListLine]) -> None:
    if len(lines) > BULK_MAX_LINES:
        raise forms.ValidationError(
            _("A list holds at most %(limit)d lines. Split it.") % {"limit": BULK_MAX_LINES}
        )
    if not lines:
        raise forms.ValidationError(_("The list has no names."))


class PlayerListForm(forms.Form):
    """A pasted list or an uploaded CSV (one of the two) of players to enter."""

    names = forms.CharField(
        label=_("Names, one a line"),
        required=False,
        max_length=200_000,
        widget=forms.Textarea(
            attrs={
                "rows": 12,
                "placeholder": _("Мамедов Эльчин\nAnna Petrova; Alpha\nIvan Sidorov, 1650"),
            }
        ),
        help_text=_("“name”, “name; club” or “name, rating”; names in either script."),
    )
    file = forms.FileField(
        label=_("or a CSV file"),
        required=False,
        help_text=_("Columns: name, and optionally club and rating; the first line names them."),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        upload = data.get("file")
        text = (data.get("names") or "").strip()
        if upload is not None and text:
            raise forms.ValidationError(_("Paste a list or upload a file, not both."))
        if upload is not None:
            if upload.size > csv_io.MAX_FILE_BYTES:
                raise forms.ValidationError(
                    _("The file is too large (at most %(limit)d MB).")
                    % {"limit": csv_io.MAX_FILE_BYTES // (1024 * 1024)}
                )
            lines = parse_list_csv(bytes(upload.read(csv_io.MAX_FILE_BYTES + 1)))
        else:
            lines = parse_pasted_list(text)
        _too_many(lines)
        data["lines"] = lines
        return data


class CheckInListForm(forms.Form):
    names = forms.CharField(
        label=_("Names to check in, one a line"),
        max_length=200_000,
        widget=forms.Textarea(attrs={"rows": 6}),
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        lines = parse_pasted_list(data.get("names") or "")
        _too_many(lines)
        data["lines"] = lines
        return data


class SelfCheckInWindowForm(forms.Form):
    opens_at = forms.DateTimeField(
        label=_("Opens at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    closes_at = forms.DateTimeField(
        label=_("Closes at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
