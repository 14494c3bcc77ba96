from __future__ import annotations

from collections import Counter

import pytest

from clubs import demo, permissions
from clubs.models import Club, Federation, Membership, Player

pytestmark = pytest.mark.django_db


def test_demo_world_has_the_promised_shape_and_loads_idempotently() -> None:
    accounts = demo.load()
    demo.load()
    assert Federation.objects.count() == 2
    assert Club.objects.count() == 5
    assert Player.objects.count() == 80
    assert Membership.objects.current().count() == 80
    countries = Counter(Player.objects.values_list("country", flat=True))
    assert set(countries) == {"RU", "AZ", "TR", "GB"}
    assert len(set(Player.objects.values_list("name_latin", flat=True))) == 80
    by_name = {account.username: account for account in accounts}
    assert set(by_name) == {"organizer", "federation-admin", "club-admin"}
    fed_admin = Player.objects.model._meta.apps.get_model("auth", "User").objects.get(
        username="federation-admin"
    )
    fsnr = Federation.objects.get(slug="fsnr")
    assert permissions.can(fed_admin, "federation.change", fsnr)
    assert not permissions.can(fed_admin, "federation.change", Federation.objects.get(slug="anf"))
