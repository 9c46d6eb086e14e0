import time
from typing import Any

from django.db import migrations


def guidelines_version_one(apps: Any, schema_editor: Any) -> None:
    """Each project's guidelines written before versions were kept become its version 1, by
    nobody known (`by` empty)."""
    Project = apps.get_model("projects", "Project")
    Version = apps.get_model("projects", "GuidelinesVersion")
    now = time.time()
    Version.objects.bulk_create(
        Version(project_id=pk, version=1, guidelines=text, questions={}, by="", created=now)
        for pk, text in Project.objects.exclude(guidelines="").values_list("pk", "guidelines")
        if not Version.objects.filter(project_id=pk).exists()
    )


class Migration(migrations.Migration):
    dependencies = [("projects", "0002_guidelines_versions")]

    operations = [migrations.RunPython(guidelines_version_one, migrations.RunPython.noop)]
