from __future__ import annotations

from typing import TYPE_CHECKING

from django.db import migrations, models

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps

# What was stored before buckets were kept at ingest, in the hour of each item's ts (capped
# as feedback.buckets caps it): counted feedback by its score, experiences as calls. Calls
# evicted from the replay buffer are gone, so an old component's early hours may count fewer
# calls than its stats row.
HOUR = {
    "sqlite": "CAST(MIN(ts, 1e13) / 3600 AS INTEGER)",
    "postgresql": "CAST(FLOOR(LEAST(ts, 1e13) / 3600) AS BIGINT)",
}


def backfill(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    connection = schema_editor.connection
    hour = HOUR.get(connection.vendor)
    if hour is None:
        return
    qn = connection.ops.quote_name
    bucket = qn(apps.get_model("feedback", "ComponentBucket")._meta.db_table)
    feedback = qn(apps.get_model("feedback", "Feedback")._meta.db_table)
    retraction = qn(apps.get_model("feedback", "Retraction")._meta.db_table)
    experience = qn(apps.get_model("feedback", "Experience")._meta.db_table)
    succeeded = "(success IS NOT NULL AND success) OR (success IS NULL AND reward >= 0)"
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {bucket} (component_name, hour, calls_total, calls_success, "
            "calls_failed, duration_count, duration_sum, score_count, score_weight, "
            f"score_weighted_sum) SELECT component_name, {hour}, COUNT(*), "
            f"SUM(CASE WHEN {succeeded} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {succeeded} THEN 0 ELSE 1 END), COUNT(duration_ms), "
            f"COALESCE(SUM(duration_ms), 0), 0, 0, 0 FROM {experience} "
            f"WHERE component_name <> '' GROUP BY component_name, {hour}"
        )
        cursor.execute(
            f"INSERT INTO {bucket} (component_name, hour, calls_total, calls_success, "
            "calls_failed, duration_count, duration_sum, score_count, score_weight, "
            f"score_weighted_sum) SELECT component_name, {hour}, 0, 0, 0, 0, 0, COUNT(*), "
            f"SUM(confidence), SUM(confidence * score) FROM {feedback} f "
            f"WHERE component_name <> '' AND NOT EXISTS "
            f"(SELECT 1 FROM {retraction} r WHERE r.feedback_id = f.id) "
            f"GROUP BY component_name, {hour} "
            "ON CONFLICT (component_name, hour) DO UPDATE SET "
            "score_count = excluded.score_count, score_weight = excluded.score_weight, "
            "score_weighted_sum = excluded.score_weighted_sum"
        )


class Migration(migrations.Migration):
    dependencies = [
        ("feedback", "0005_feedback_submitted_by_unindexed"),
    ]

    operations = [
        migrations.CreateModel(
            name="ComponentBucket",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("component_name", models.CharField(max_length=200)),
                (
                    "hour",
                    models.BigIntegerField(
                        help_text="epoch seconds // 3600 of the calls' and scores' ts"
                    ),
                ),
                ("calls_total", models.BigIntegerField(default=0)),
                ("calls_success", models.BigIntegerField(default=0)),
                ("calls_failed", models.BigIntegerField(default=0)),
                ("duration_count", models.BigIntegerField(default=0)),
                ("duration_sum", models.FloatField(default=0.0)),
                ("score_count", models.BigIntegerField(default=0)),
                ("score_weight", models.FloatField(default=0.0)),
                ("score_weighted_sum", models.FloatField(default=0.0)),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("component_name", "hour"), name="component_bucket_once"
                    )
                ],
            },
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
