"""Results entered by an arbiter or organizer are official at once (ReportSource
``official``); a club or federation official confirms for a player without an
account (ResponseKind ``official``), and such a report has no deadline."""

from django.db import migrations, models
from django.db.models import Q


def no_deadline_without_an_answerer(apps, schema_editor):
    """Pending reports that a player without an account would have to answer wait
    for an official: they lose the deadline after which they became official."""
    ResultReport = apps.get_model("games", "ResultReport")
    player1_absent = Q(match__player1__user__isnull=True)
    player2_absent = Q(match__player2__user__isnull=True)
    silent = (
        (Q(reporter_side=1) & player2_absent)
        | (Q(reporter_side=2) & player1_absent)
        | (Q(reporter_side__isnull=True) & (player1_absent | player2_absent))
    )
    ids = list(ResultReport.objects.filter(silent, status="pending").values_list("pk", flat=True))
    ResultReport.objects.filter(pk__in=ids).update(deadline=None)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0004_scorer_mode"),
    ]

    operations = [
        migrations.AlterField(
            model_name="reportresponse",
            name="kind",
            field=models.CharField(
                choices=[
                    ("confirm", "confirmed"),
                    ("dispute", "disputed"),
                    ("uphold", "upheld by the arbiter"),
                    ("overturn", "overturned by the arbiter"),
                    ("auto", "confirmed after the deadline"),
                    ("official", "confirmed by an official"),
                ],
                max_length=10,
                verbose_name="response",
            ),
        ),
        migrations.AlterField(
            model_name="resultreport",
            name="source",
            field=models.CharField(
                choices=[
                    ("player", "player"),
                    ("record", "move-by-move record"),
                    ("arbiter", "arbiter's decision"),
                    ("override", "organizer's override"),
                    ("official", "entered by the arbiter or organizer"),
                ],
                max_length=10,
                verbose_name="source",
            ),
        ),
        migrations.RunPython(no_deadline_without_an_answerer, migrations.RunPython.noop),
    ]
