"""Forms of the rating pages: publishing a list is a preview, then a confirmation."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class PublishForm(forms.Form):
    """Staff, step one: the date of the list to preview (ratings.services.preview_list).

    The page sets ``initial`` to ratings.services.default_list_date: the day after
    the latest rated match (at most today), so the list counts every rated match.
    """

    date = forms.DateField(
        label=_("List date"),
        help_text=_(
            "The list counts the rated matches played before this date begins, up to "
            "the end of the day before: a list of the 1st of a month covers the month before."
        ),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )


class ConfirmPublishForm(forms.Form):
    """Staff, step two: publish what was previewed (ratings.services.publish_list).

    ``digest`` names the previewed list; if the ratings changed since, the
    service refuses and the page shows the new preview instead.
    """

    date = forms.DateField(widget=forms.DateInput(attrs={"type": "hidden"}, format="%Y-%m-%d"))
    digest = forms.CharField(max_length=64, widget=forms.HiddenInput)
