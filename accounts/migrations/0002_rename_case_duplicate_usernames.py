"""Before usernames become unique regardless of case (0003), rename the accounts that
already share a name with an earlier one.

Ruling, deterministic and lossless: in each group of usernames equal when lowercased, the
account created first (lowest id) keeps its name; every later one becomes
`<name>-dup<id>` (cut to fit 150 characters; the id makes it unique). Nothing is deleted:
their tables, moves and tokens stay theirs, and the new name is visible in the admin, where an
operator can tell the player. The reverse migration leaves the names as they are."""

from django.db import migrations
from django.db.models import Count
from django.db.models.functions import Lower

MAX_LENGTH = 150


def rename_later_duplicates(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    clashing = (
        User.objects.annotate(folded=Lower("username"))
        .values("folded")
        .annotate(n=Count("id"))
        .filter(n__gt=1)
        .values_list("folded", flat=True)
    )
    for folded in list(clashing):
        later = User.objects.annotate(folded=Lower("username")).filter(folded=folded).order_by("id")[1:]
        for user in later:
            name = user.username
            while True:  # `<name>-dup<id>` could itself be taken; add the id again until free
                suffix = f"-dup{user.pk}"
                name = name[: MAX_LENGTH - len(suffix)] + suffix
                if not User.objects.filter(username__iexact=name).exists():
                    break
            user.username = name
            user.save(update_fields=["username"])


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(rename_later_duplicates, migrations.RunPython.noop)]
