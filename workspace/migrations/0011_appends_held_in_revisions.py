"""An append no longer rewrites the document's content column: the column
holds the content at ``content_version``, and the appends since are read
from their revisions (``WorkingDocument.from_db``). Every existing row's
column holds the content at its version; going back, every row's column
takes in the appends it lacks first."""

from django.db import migrations, models
from django.db.models import F


def every_content_whole(apps, schema_editor):
    apps.get_model("workspace", "WorkingDocument").objects.update(content_version=F("version"))


def fold_every_document(apps, schema_editor):
    documents = apps.get_model("workspace", "WorkingDocument").objects
    revisions = apps.get_model("workspace", "Revision").objects
    for document in documents.filter(content_version__lt=F("version")).only("content", "content_version", "version"):
        appended = revisions.filter(
            document_id=document.pk, version__gt=document.content_version, version__lte=document.version
        )
        texts = appended.order_by("version").values_list("text", flat=True)
        documents.filter(pk=document.pk).update(content=document.content + "".join(texts))


class Migration(migrations.Migration):
    dependencies = [("workspace", "0010_proposals_with_lz4")]

    operations = [
        migrations.AddField(
            model_name="workingdocument",
            name="content_version",
            field=models.PositiveIntegerField(db_default=1, default=1),
        ),
        migrations.RunPython(every_content_whole, fold_every_document),
    ]
