"""Forms of the match and result pages.  They only validate input: views hand
the cleaned data to games.services, which checks permissions and saves.

Forms that answer a result carry the report's id and status as the page
showed them; the view compares them with the stored report so that an answer
to a result changed meanwhile is refused with a clear message (the services
refuse it too when the change happens between that check and the save).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext_lazy as _

from clubs import permissions
from clubs.models import Discipline, Player
from games import adapters
from games.models import ClockMode, Match
from games.services.matfiles import content_hash

MAX_LENGTH = 99


class PlayerChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Player) -> str:
        return str(obj)


def own_player(user: Any) -> Player | None:
    if user is None or not user.is_authenticated:
        return None
    return (
        Player.objects.filter(user=user, merged_into__isnull=True)
        .select_related("federation")
        .first()
    )


def check_match_file_size(size: int) -> None:
    """Refuse a match file larger than ``settings.MATCH_FILE_MAX_BYTES`` by its
    size alone, before anything reads or parses it."""
    limit = settings.MATCH_FILE_MAX_BYTES
    if size > limit:
        raise ValidationError(
            _("The file is too large: %(size)s, at most %(limit)s.")
            % {"size": filesizeformat(size), "limit": filesizeformat(limit)},
            code="file_too_large",
        )


def read_upload(upload: Any) -> bytes:
    """An uploaded match file's bytes, no more than ``MATCH_FILE_MAX_BYTES``."""
    check_match_file_size(upload.size)
    data = bytes(upload.read(settings.MATCH_FILE_MAX_BYTES + 1))
    check_match_file_size(len(data))  # a size that was not the truth
    return data


def read_match_file(upload: Any) -> str:
    """The text of an uploaded match file (UTF-8, else Latin-1 as old .mat files are)."""
    return match_file_text(read_upload(upload))


def match_file_text(data: bytes) -> str:
    if b"\x00" in data:
        raise ValidationError(_("This is not a text file: a .mat file is plain text."))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    if not text.strip():
        raise ValidationError(_("The file is empty."))
    return text


class _Players(forms.Form):
    """Player 1 and player 2 as the acting user may choose them: a player
    arranges their own matches against players of their federation; staff
    arrange matches between players they manage.  Player 1 plays White
    except where each game's opening roll names the colours (Nauka i
    Zhizn), which the form cannot know before the discipline is chosen."""

    player1 = PlayerChoiceField(
        queryset=Player.objects.none(),
        label=_("Player 1"),
        help_text=_(
            "Plays White, except in Nauka i Zhizn rules, where the opening roll "
            "of each game decides the colours."
        ),
    )
    player2 = PlayerChoiceField(queryset=Player.objects.none(), label=_("Player 2"))

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        self.own = own_player(user)
        managed = permissions.managed_players(user)
        first: QuerySet[Player] = managed
        second: QuerySet[Player] = managed
        if self.own is not None:
            first = Player.objects.filter(Q(pk=self.own.pk) | Q(pk__in=managed.values("pk")))
            if self.own.federation_id is not None:
                second = Player.objects.filter(
                    Q(federation_id=self.own.federation_id, merged_into__isnull=True)
                    | Q(pk__in=managed.values("pk"))
                )
            self.fields["player1"].initial = self.own.pk
        order = ("name_latin", "id")
        self.fields["player1"].queryset = first.select_related("federation").order_by(*order)
        self.fields["player2"].queryset = second.select_related("federation").order_by(*order)

    @property
    def may_arrange(self) -> bool:
        """Whether the user has anyone to arrange a match for."""
        return self.own is not None or permissions.managed_players(self.user).exists()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("player1"), cleaned.get("player2")
        if first and second:
            if first.pk == second.pk:
                self.add_error("player2", _("A match needs two different players."))
            elif first.federation_id != second.federation_id:
                self.add_error("player2", _("Both players must belong to the same federation."))
        return cleaned


class MatchForm(_Players):
    discipline = forms.ModelChoiceField(
        queryset=Discipline.objects.order_by("name"), label=_("Discipline")
    )
    length = forms.IntegerField(
        label=_("Match length"),
        min_value=0,
        max_value=MAX_LENGTH,
        initial=5,
        help_text=_("Points to win; 0 for a money session."),
    )
    recorded = forms.BooleanField(
        label=_("Record it move by move"),
        required=False,
        help_text=_("Otherwise the players report the final score after the match."),
    )
    clock_mode = forms.ChoiceField(
        label=_("Clock"), choices=ClockMode.choices, initial=ClockMode.NONE
    )
    reserve_minutes = forms.IntegerField(
        label=_("Reserve (minutes)"), min_value=0, max_value=600, initial=0, required=False
    )
    per_point_minutes = forms.IntegerField(
        label=_("Reserve per match point (minutes)"),
        min_value=0,
        max_value=60,
        initial=0,
        required=False,
    )
    move_seconds = forms.IntegerField(
        label=_("Delay or increment per move (seconds)"),
        min_value=0,
        max_value=600,
        initial=0,
        required=False,
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        for name in ("reserve_minutes", "per_point_minutes", "move_seconds"):
            cleaned[name] = cleaned.get(name) or 0
        if cleaned.get("clock_mode") not in (None, ClockMode.NONE) and not (
            cleaned["reserve_minutes"] or cleaned["per_point_minutes"]
        ):
            self.add_error("reserve_minutes", _("A clock needs a reserve of time."))
        return cleaned

    def service_arguments(self) -> dict[str, Any]:
        data = self.cleaned_data
        clocked = data["clock_mode"] != ClockMode.NONE
        return {
            "player1": data["player1"],
            "player2": data["player2"],
            "discipline": data["discipline"],
            "length": data["length"],
            "recorded": data["recorded"],
            "clock_mode": data["clock_mode"],
            "clock_reserve_seconds": 60 * data["reserve_minutes"] if clocked else 0,
            "clock_per_point_seconds": 60 * data["per_point_minutes"] if clocked else 0,
            "clock_move_seconds": data["move_seconds"] if clocked else 0,
        }


class ImportMatForm(_Players):
    discipline = forms.ModelChoiceField(
        queryset=Discipline.objects.order_by("name"), label=_("Discipline")
    )
    file = forms.FileField(
        label=_("Match file (.mat, .xg)"),
        help_text=_(
            "A GNU Backgammon, Jellyfish or eXtreme Gammon match file; every play is checked."
        ),
    )
    source_hash = ""  # the file's content_hash, once clean_file has read it

    def clean_file(self) -> str | bytes:
        """The text of a .mat file, or the bytes of an .xg file (by its name or
        its first bytes), which the service reads."""
        upload = self.cleaned_data["file"]
        data = read_upload(upload)
        # The content's hash, as an archive's import takes it: one file, one match.
        if data[:4] == b"RGMH" or str(upload.name).casefold().endswith(".xg"):
            self.source_hash = content_hash(data, text=False)
            return data
        self.source_hash = content_hash(data, text=True)
        return match_file_text(data)


# --- Result reports


class _Prefixed(forms.Form):
    """Field ids start with the form's kind: several forms share the match page."""

    kind = ""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", f"id_{self.kind}_%s")
        super().__init__(*args, **kwargs)


class _Versioned(_Prefixed):
    """The version of the result the page showed (report id and status)."""

    report = forms.IntegerField(widget=forms.HiddenInput, required=False)
    status = forms.CharField(widget=forms.HiddenInput, required=False)


class ReportForm(_Prefixed):
    """A player reports the final score, optionally with the games or a .mat file."""

    kind = "report"

    score1 = forms.IntegerField(label=_("Score of player 1"), min_value=0, required=False)
    score2 = forms.IntegerField(label=_("Score of player 2"), min_value=0, required=False)
    mat_file = forms.FileField(
        label=_("Match file (.mat)"),
        required=False,
        help_text=_("Optional: the score and the games are then read from the file."),
    )
    # The open report the page showed (empty when there was none).
    current = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, match: Match, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.match = match
        self.fields["score1"].label = _("Score of %(player)s") % {"player": match.player1}
        self.fields["score2"].label = _("Score of %(player)s") % {"player": match.player2}
        self.mat_text = ""

    def clean_mat_file(self) -> str:
        upload = self.cleaned_data.get("mat_file")
        return read_match_file(upload) if upload else ""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        self.mat_text = cleaned.get("mat_file") or ""
        missing = cleaned.get("score1") is None or cleaned.get("score2") is None
        if self.mat_text and missing and not self.errors:
            # The score is the file's: read it (the service checks the file again).
            try:
                _games, final = adapters.log_from_mat(self.match, self.mat_text)
            except ValidationError as error:
                self.add_error("mat_file", error)
                return cleaned
            cleaned["score1"], cleaned["score2"] = final
        elif missing and not self.errors:
            raise ValidationError(_("Give both scores (or upload the match file)."))
        return cleaned


RESULT_SUGGESTIONS = ("single", "mars", "koks", "gammon", "backgammon", "pass", "time")


class GameRowForm(forms.Form):
    """One game of the reported log: winner, points, result, cube."""

    winner = forms.TypedChoiceField(
        label=_("Winner"), choices=[], coerce=int, required=False, empty_value=None
    )
    points = forms.IntegerField(label=_("Points"), min_value=1, required=False)
    result = forms.CharField(
        label=_("Result"),
        max_length=20,
        required=False,
        widget=forms.TextInput(attrs={"list": "game-results", "size": 8}),
    )
    cube = forms.IntegerField(
        label=_("Cube"),
        min_value=1,
        required=False,
        widget=forms.NumberInput(attrs={"size": 3}),
    )

    def __init__(self, *args: Any, match: Match, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["winner"].choices = [
            ("", "—"),
            (1, str(match.player1)),
            (2, str(match.player2)),
        ]
        self.fields["points"].widget.attrs["size"] = 3

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        filled = [cleaned.get(name) for name in ("winner", "points", "result", "cube")]
        if any(value not in (None, "") for value in filled):
            if cleaned.get("winner") is None:
                self.add_error("winner", _("Who won this game?"))
            if cleaned.get("points") is None:
                self.add_error("points", _("How many points did it score?"))
        return cleaned

    def entry(self) -> dict[str, Any] | None:
        data = getattr(self, "cleaned_data", {})
        if data.get("winner") is None:
            return None
        return {
            "winner": data["winner"],
            "points": data["points"],
            "result": data.get("result") or "",
            "cube": data.get("cube") or 1,
        }


class BaseGameRows(forms.BaseFormSet):
    def __init__(self, *args: Any, match: Match, **kwargs: Any) -> None:
        self.match = match
        super().__init__(*args, **kwargs)

    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {**super().get_form_kwargs(index), "match": self.match}

    @property
    def empty_form(self) -> forms.Form:
        return self.form(
            auto_id=self.auto_id,
            prefix=self.add_prefix("__prefix__"),
            use_required_attribute=False,
            match=self.match,
        )

    def log(self) -> list[dict[str, Any]]:
        """The filled rows in order, numbered from 1."""
        entries = [entry for form in self.forms if (entry := form.entry()) is not None]
        return [{"number": number, **entry} for number, entry in enumerate(entries, start=1)]


def game_rows(match: Match, data: Any = None) -> BaseGameRows:
    extra = min(2 * match.length - 1, 25) if match.length else 10
    formset_class = forms.formset_factory(
        GameRowForm, formset=BaseGameRows, extra=max(extra, 1), max_num=60
    )
    return formset_class(data, prefix="games", match=match)  # type: ignore[call-arg]


class ConfirmForm(_Versioned):
    kind = "confirm"


class DisputeForm(_Versioned):
    kind = "dispute"
    reason = forms.CharField(
        label=_("What is wrong with this result?"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )


class DecideForm(_Versioned):
    kind = "decide"
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[
            ("uphold", _("Uphold the reported result")),
            ("set", _("Set the score")),
        ],
        widget=forms.RadioSelect,
        initial="set",
    )
    score1 = forms.IntegerField(label=_("Score of player 1"), min_value=0, required=False)
    score2 = forms.IntegerField(label=_("Score of player 2"), min_value=0, required=False)
    reason = forms.CharField(
        label=_("Reason"), max_length=2000, widget=forms.Textarea(attrs={"rows": 3})
    )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("decision") == "set" and (
            cleaned.get("score1") is None or cleaned.get("score2") is None
        ):
            raise ValidationError(_("Give both scores of the decided result."))
        return cleaned


class OverrideForm(_Prefixed):
    kind = "override"

    score1 = forms.IntegerField(label=_("Score of player 1"), min_value=0)
    score2 = forms.IntegerField(label=_("Score of player 2"), min_value=0)
    forfeit = forms.BooleanField(label=_("Won by forfeit"), required=False)
    reason = forms.CharField(
        label=_("Reason (kept with the result)"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    # The newest report the page showed (0 when there was none).
    version = forms.IntegerField(widget=forms.HiddenInput, required=False)


class CancelForm(_Prefixed):
    kind = "cancel"

    reason = forms.CharField(
        label=_("Reason (kept with the match)"),
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 2}),
    )
    # The newest report the page showed (0 when there was none).
    version = forms.IntegerField(widget=forms.HiddenInput, required=False)


class TimeoutForm(forms.Form):
    loser = forms.TypedChoiceField(choices=[(1, "1"), (2, "2")], coerce=int)
    version = forms.IntegerField(widget=forms.HiddenInput, required=False)
