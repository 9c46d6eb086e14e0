"""Agreement keeps only the units with two scores or more (feedback.moments): the rows of the
others, which earlier versions kept, are in no total and no longer read."""

from typing import Any

from django.db import migrations


def drop_unpaired_units(apps: Any, schema_editor: Any) -> None:
    unit = apps.get_model("feedback", "AgreementUnit")
    unit.objects.using(schema_editor.connection.alias).filter(raters__lt=2).delete()


class Migration(migrations.Migration):
    dependencies = [("feedback", "0009_ingest_indexes_only_where_queried")]

    operations = [migrations.RunPython(drop_unpaired_units, migrations.RunPython.noop)]
