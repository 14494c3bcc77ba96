"""Forms of the clubs pages.  They only validate input: views hand the cleaned
data to clubs.services, which checks permissions and saves."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model, password_validation
from django.contrib.auth.forms import UsernameField
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext_lazy as _

from base.engine_messages import message_for
from clubs.models import DEFAULT_OPTIONS, Player
from engine.errors import EngineError
from engine.rules.game import GameRules
from engine.rules.variants import Variant, variant_options

# A variant's options as text fields (Soldiers, RULES.md §3.1: the army, then each
# side's placement), set on a discipline or, as house rules, on a tournament.
OPTION_FIELDS = ("army", "placement", "placement_black")
_ARMY_CODES = {"army_too_large", "bad_army"}


def option_fields() -> dict[str, forms.Field]:
    """The options' fields, RULES.md's defaults preselected (new instances per form)."""
    return {
        "army": forms.CharField(
            label=_("army (Soldiers)"),
            required=False,
            max_length=200,
            initial=DEFAULT_OPTIONS["army"],
            help_text=_(
                "Class checkers per side: K general, G guard, D druid, E wounded even, "
                "O wounded odd; the rest of the 15 are pawns."
            ),
        ),
        "placement": forms.CharField(
            label=_("placement (Soldiers)"),
            required=False,
            max_length=200,
            initial=DEFAULT_OPTIONS["placement"],
            help_text=_(
                "Each class checker's start point in the player's own numbering, for both sides."
            ),
        ),
        "placement_black": forms.CharField(
            label=_("Black's placement (Soldiers)"),
            required=False,
            max_length=200,
            help_text=_("Only when Black's placement differs from White's."),
        ),
    }


def show_options(form: forms.BaseForm, stored: Any) -> None:
    """Start the option fields from options stored before."""
    if isinstance(stored, dict) and stored:
        for name in OPTION_FIELDS:
            form.fields[name].initial = stored.get(name, "")


def options_from(form: forms.BaseForm, variant: Variant | None) -> dict[str, str] | None:
    """The options the fields give for ``variant`` (none for a variant without
    options); None, with the engine's reason on the field it is about, when the
    variant cannot use them."""
    if variant is None or not variant.option_names:
        return {}
    cleaned = form.cleaned_data
    options = {
        name: (cleaned.get(name) or "").strip()
        for name in OPTION_FIELDS
        if name in variant.option_names and (cleaned.get(name) or "").strip()
    }
    try:
        GameRules(variant, options=variant_options(options))
    except EngineError as error:
        form.add_error(_option_field(variant, error, options), message_for(error))
        return None
    return options


def _option_field(variant: Variant, error: EngineError, options: dict[str, str]) -> str:
    """The field an option's error is about: the army's own codes (or a class letter
    written in it) are the army's; a placement's is Black's when White's placement
    alone is usable."""
    token = str(error.data.get("token", ""))
    if error.code in _ARMY_CODES or (
        error.code == "unknown_class" and token and token in options.get("army", "")
    ):
        return "army"
    if options.get("placement_black"):
        white = {k: v for k, v in options.items() if k != "placement_black"}
        try:
            GameRules(variant, options=variant_options(white))
        except EngineError:
            return "placement"
        return "placement_black"
    return "placement"


def add_service_errors(form: forms.Form, error: ValidationError) -> None:
    """Show a service's ValidationError on the form, by field where it names one."""
    if hasattr(error, "error_dict"):
        for field, messages in error.message_dict.items():
            target = field if field in form.fields else None
            if field != NON_FIELD_ERRORS and target is None:
                messages = [f"{field}: {message}" for message in messages]
            form.add_error(target, messages)
    else:
        form.add_error(None, error.messages)


class SignUpForm(forms.Form):
    username = UsernameField(
        label=_("Username"),
        max_length=150,
        help_text=_("Letters, digits and @/./+/-/_ only."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    email = forms.EmailField(
        label=_("E-mail"),
        help_text=_("Password resets are sent to this address."),
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=password_validation.password_validators_help_text_html(),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if get_user_model().objects.filter(username__iexact=username).exists():
            raise ValidationError(_("This username is taken."))
        return username

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"]
        if get_user_model().objects.filter(email__iexact=email).exists():
            raise ValidationError(_("An account with this e-mail address exists already."))
        return email

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("password1"), cleaned.get("password2")
        if first and second and first != second:
            self.add_error("password2", _("The two passwords differ."))
        elif first:
            user = get_user_model()(
                username=cleaned.get("username", ""), email=cleaned.get("email", "")
            )
            try:
                password_validation.validate_password(first, user)
            except ValidationError as error:
                self.add_error("password1", error)
        return cleaned


class ClaimForm(forms.Form):
    message = forms.CharField(
        label=_("Message to the club or federation"),
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("How can they tell it is you? For example, your club and the city."),
    )


class DecideClaimForm(forms.Form):
    decision = forms.ChoiceField(
        choices=[("approve", _("Approve")), ("reject", _("Reject"))],
        widget=forms.HiddenInput,
    )


def _model_field(name: str) -> forms.Field:
    field = Player._meta.get_field(name).formfield()
    assert field is not None
    return field


class OwnProfileForm(forms.Form):
    """What a player may change on their own profile (plain form: the player
    instance stays untouched until the service applies the change).

    Never a field the federation keeps (clubs.services.FEDERATION_KEPT_FIELDS;
    merges and the linked account have services of their own): only its admins
    change those (tests/clubs/test_federation_fields.py)."""

    name_native = _model_field("name_native")
    name_latin = _model_field("name_latin")
    birth_year = forms.IntegerField(
        label=_("Birth year"), required=False, min_value=1900, max_value=2100
    )
    country = _model_field("country")

    @classmethod
    def for_player(cls, player: Player, data: Any = None) -> OwnProfileForm:
        initial = {name: getattr(player, name) for name in cls.base_fields}
        initial["country"] = player.country.code or ""
        return cls(data=data, initial=initial)

    def changes(self, player: Player) -> dict[str, Any]:
        """The cleaned values that differ from the player's."""
        changed: dict[str, Any] = {}
        for name, value in self.cleaned_data.items():
            current = getattr(player, name)
            if name == "country":
                current = current.code or ""
            if value != current:
                changed[name] = value
        return changed
