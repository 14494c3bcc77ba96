from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def hash_archived_matches(apps, schema_editor):
    """A match imported from an archive before this field existed takes its file's
    hash, so that the same file uploaded alone is recognised as imported already."""
    Match = apps.get_model("games", "Match")
    ArchiveFile = apps.get_model("games", "ArchiveFile")
    imported = ArchiveFile.objects.filter(
        match_id=OuterRef("pk"), state__in=["imported", "warnings"]
    )
    Match.objects.filter(pk__in=imported.values("match_id")).update(
        source_hash=Subquery(imported.values("sha256")[:1])
    )


class Migration(migrations.Migration):
    dependencies = [
        ("clubs", "0004_discipline_variant_options"),
        ("games", "0011_turn_position_text"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="source_hash",
            field=models.CharField(
                blank=True, default="", max_length=64, verbose_name="imported file (SHA-256)"
            ),
        ),
        migrations.RunPython(hash_archived_matches, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="match",
            constraint=models.UniqueConstraint(
                condition=models.Q(("source_hash", ""), _negated=True),
                fields=("federation", "source_hash"),
                name="one_match_per_imported_file",
            ),
        ),
    ]
