"""Forms of the rating pages."""

from __future__ import annotations

import datetime

from django import forms
from django.utils.translation import gettext_lazy as _


class PublishForm(forms.Form):
    """Staff: publish a pool's list at a date (ratings.services.publish_list)."""

    date = forms.DateField(
        label=_("List date"),
        help_text=_(
            "The list counts the rated matches played before this date begins: "
            "a list of the 1st of a month covers the month before."
        ),
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        initial=datetime.date.today,
    )
