"""One person a username, whatever its case.

Before the constraint, people whose usernames differ only in case are looked for: the migration
stops, naming them, rather than fail on the database's own error, so that an operator renames
or removes all but one of each (`manage.py shell`, or the admin) and migrates again.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations, models
from django.db.models import Count
from django.db.models.functions import Lower

RENAME_FIRST = (
    "Usernames must be unique whatever their case, and these differ only in case: {}. "
    "Rename or remove all but one of each (in the admin, or with manage.py shell), then "
    "migrate again."
)


def refuse_usernames_differing_only_in_case(apps: Any, schema_editor: Any) -> None:
    User = apps.get_model("accounts", "User")
    clashing = (
        User.objects.annotate(folded=Lower("username"))
        .values("folded")
        .annotate(people=Count("id"))
        .filter(people__gt=1)
        .values_list("folded", flat=True)
    )
    groups = [
        sorted(User.objects.filter(username__iexact=folded).values_list("username", flat=True))
        for folded in clashing
    ]
    if groups:
        names = "; ".join(", ".join(repr(name) for name in group) for group in sorted(groups))
        raise RuntimeError(RENAME_FIRST.format(names))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [
        migrations.RunPython(refuse_usernames_differing_only_in_case, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_unique_in_any_case",
                violation_error_message=(
                    "Someone has this username already, in this or another case."
                ),
            ),
        ),
    ]
