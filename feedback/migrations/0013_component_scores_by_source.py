"""Each component's scores by source (human, env, self) beside their total, so that the pages
for people show a human average; filled from the counted feedback stored before (a retracted
rating counts in none), one grouped query a source and batched updates."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import migrations, models
from django.db.models import Count, F, Sum

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps

SOURCES = ("human", "env", "self")  # learnportal_protocol.FeedbackSource, as of this migration
BATCH = 500


def scores_by_source_from_feedback(
    apps: StateApps, schema_editor: BaseDatabaseSchemaEditor
) -> None:
    feedback = apps.get_model("feedback", "Feedback")
    stats = apps.get_model("feedback", "ComponentStats")
    rows = {row.component_name: row for row in stats.objects.only("component_name")}
    touched: dict[int, Any] = {}
    for source in SOURCES:
        sums = (
            feedback.objects.filter(source=source, retraction__isnull=True)
            .exclude(component_name="")
            .values("component_name")
            .annotate(n=Count("id"), w=Sum("confidence"), ws=Sum(F("confidence") * F("score")))
        )
        for tally in sums:
            row = rows.get(tally["component_name"])
            if row is None:  # stats are kept for every scored component; none is a stray
                continue
            setattr(row, f"{source}_count", tally["n"])
            setattr(row, f"{source}_weight", float(tally["w"] or 0.0))
            setattr(row, f"{source}_weighted_sum", float(tally["ws"] or 0.0))
            touched[row.pk] = row
    fields = [
        f"{source}_{part}" for source in SOURCES for part in ("count", "weight", "weighted_sum")
    ]
    stats.objects.bulk_update(list(touched.values()), fields, batch_size=BATCH)


def _fields(source: str) -> list[migrations.AddField]:
    return [
        migrations.AddField(
            model_name="componentstats",
            name=f"{source}_count",
            field=models.BigIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="componentstats",
            name=f"{source}_weight",
            field=models.FloatField(default=0.0),
        ),
        migrations.AddField(
            model_name="componentstats",
            name=f"{source}_weighted_sum",
            field=models.FloatField(default=0.0),
        ),
    ]


class Migration(migrations.Migration):
    dependencies = [("feedback", "0012_experience_attribution")]

    operations = [
        *(operation for source in SOURCES for operation in _fields(source)),
        migrations.RunPython(scores_by_source_from_feedback, migrations.RunPython.noop),
    ]
