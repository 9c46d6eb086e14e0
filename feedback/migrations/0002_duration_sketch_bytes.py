from __future__ import annotations

import json
from typing import TYPE_CHECKING

import numpy as np
from django.db import migrations, models

if TYPE_CHECKING:
    from django.db.backends.base.schema import BaseDatabaseSchemaEditor
    from django.db.migrations.state import StateApps


def json_sketches_to_bytes(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    """Sketches were JSON `{"zeros": n, "bins": {index: count}}`; keep their counts."""
    from feedback.sketch import DurationSketch

    stats = apps.get_model("feedback", "ComponentStats")
    for row in stats.objects.all():
        raw = row.duration_sketch or b""
        raw = raw.encode() if isinstance(raw, str) else bytes(raw)  # SQLite keeps the old text
        try:
            data = json.loads(raw.decode())
        except (UnicodeDecodeError, ValueError):
            continue
        bins = {int(k): int(v) for k, v in data.get("bins", {}).items()}
        sketch = DurationSketch(zeros=int(data.get("zeros", 0)))
        if bins:
            low, high = min(bins), max(bins)
            counts = np.zeros(high - low + 1, dtype=np.int64)
            for key, count in bins.items():
                counts[key - low] = count
            sketch = DurationSketch(low, counts, sketch.zeros)
        row.duration_sketch = sketch.to_bytes()
        row.save(update_fields=["duration_sketch"])


class Migration(migrations.Migration):
    dependencies = [
        ("feedback", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="componentstats",
            name="duration_sketch",
            field=models.BinaryField(default=b"", help_text="quantile sketch (feedback.sketch)"),
        ),
        migrations.RunPython(json_sketches_to_bytes, migrations.RunPython.noop),
    ]
