from django.db import migrations, models

from ._compression import compress_with_lz4


def compress_content_with_lz4(apps, schema_editor):
    compress_with_lz4(schema_editor, [("workspace_workingdocument", "content")])


class Migration(migrations.Migration):
    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="WorkingDocument",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("thread_id", models.CharField(max_length=128, unique=True)),
                ("title", models.CharField(blank=True, default="", max_length=255)),
                ("content", models.TextField(blank=True, default="")),
                (
                    "length",
                    models.PositiveIntegerField(default=0, help_text="Characters (code points) in content."),
                ),
                (
                    "version",
                    models.PositiveIntegerField(default=1, help_text="1 when created, +1 on every change."),
                ),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("updated_at", models.DateTimeField(auto_now=True)),
            ],
            options={"verbose_name": "working document", "ordering": ["-updated_at"]},
        ),
        migrations.RunPython(compress_content_with_lz4, migrations.RunPython.noop, elidable=True),
    ]
