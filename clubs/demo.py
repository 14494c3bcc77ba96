"""Demo data of the clubs app: the accounts a newcomer signs in with."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

ORGANIZER_USERNAME = "organizer"
# A fixed password keeps `make run` reproducible; the demo never runs with DEBUG off.
ORGANIZER_PASSWORD = "nardy-demo"


@dataclass(frozen=True)
class DemoAccount:
    username: str
    password: str
    created: bool


@transaction.atomic
def load() -> DemoAccount:
    organizers, _ = Group.objects.get_or_create(name="Organizers")
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=ORGANIZER_USERNAME,
        defaults={"first_name": "Demo", "last_name": "Organizer", "email": "organizer@example.org"},
    )
    user.is_staff = True
    user.is_superuser = True  # the demo organizer runs the whole demo site
    user.set_password(ORGANIZER_PASSWORD)
    user.save()
    user.groups.add(organizers)
    return DemoAccount(ORGANIZER_USERNAME, ORGANIZER_PASSWORD, created)
