"""Proposals store a whole document each: lz4 TOAST compression for them too,
as for the document and its history (``_compression``)."""

from django.db import migrations

from ._compression import compress_with_lz4


def compress_proposals_with_lz4(apps, schema_editor):
    compress_with_lz4(schema_editor, [("workspace_proposal", "content"), ("workspace_proposal", "text")])


class Migration(migrations.Migration):
    dependencies = [("workspace", "0009_review")]

    operations = [
        migrations.RunPython(compress_proposals_with_lz4, migrations.RunPython.noop, elidable=True),
    ]
