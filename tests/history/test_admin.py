import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from tests.support import stored
from workspace.documents.repository import WorkspaceRepository
from workspace.models import Revision, WorkingDocument
from workspace.tools import DocumentTools

pytestmark = pytest.mark.django_db

LIST = "/admin/workspace/workingdocument/"


@pytest.fixture
def document():
    WorkspaceRepository.upsert_document(
        "thread-42", content='<script>alert("x")</script><img src=x onerror="alert(1)">', title="Evil <b>title</b>"
    )
    return WorkingDocument.objects.get(thread_id="thread-42")


def staff(*permissions):
    user = get_user_model().objects.create_user("staffer", password="pw", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=permissions))
    return user


def test_the_list_shows_thread_title_length_version(client, admin_user, document):
    client.force_login(admin_user)
    response = client.get(LIST)
    assert response.status_code == 200
    page = response.content.decode()
    assert "thread-42" in page
    assert "Evil &lt;b&gt;title&lt;/b&gt;" in page
    assert '<td class="field-length">57</td>' in page
    assert '<td class="field-version">1</td>' in page


def test_search_by_thread_id_and_title(client, admin_user, document):
    WorkspaceRepository.upsert_document("other-thread", content="x", title="Groceries")
    client.force_login(admin_user)
    by_id = client.get(LIST, {"q": "thread-42"}).content.decode()
    assert "thread-42" in by_id and "other-thread" not in by_id
    by_title = client.get(LIST, {"q": "Groceries"}).content.decode()
    assert "other-thread" in by_title and "thread-42" not in by_title


def test_the_detail_shows_the_content_as_escaped_text(client, admin_user, document):
    client.force_login(admin_user)
    page = client.get(f"{LIST}{document.pk}/change/").content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page
    assert '<script>alert("x")' not in page
    assert "<img src=x" not in page


def test_staff_with_view_permission_can_view_but_not_edit(client, document):
    client.force_login(staff("view_workingdocument"))
    url = f"{LIST}{document.pk}/change/"
    page = client.get(url)
    assert page.status_code == 200
    assert 'name="_save"' not in page.content.decode()

    response = client.post(url, {"thread_id": "thread-42", "title": "hacked", "content": "hacked"})
    assert response.status_code == 403
    assert stored("thread-42")["title"] == "Evil <b>title</b>"


def test_nobody_adds_or_edits_documents_in_admin_not_even_a_superuser(client, admin_user, document):
    client.force_login(admin_user)
    assert client.get(f"{LIST}add/").status_code == 403
    client.post(f"{LIST}{document.pk}/change/", {"thread_id": "thread-42", "title": "x", "content": "x"})
    assert stored("thread-42")["version"] == 1


def test_staff_without_permission_cannot_see_documents(client, document):
    client.force_login(staff())
    assert client.get(LIST).status_code == 403
    assert client.get(f"{LIST}{document.pk}/change/").status_code == 403


def test_the_date_hierarchy_and_filter_narrow_the_list(client, admin_user, document):
    client.force_login(admin_user)
    year = document.updated_at.year
    this_year = client.get(LIST, {"updated_at__year": year, "updated_at__month": document.updated_at.month})
    assert this_year.status_code == 200 and "thread-42" in this_year.content.decode()
    last_year = client.get(LIST, {"updated_at__year": year - 1})
    assert last_year.status_code == 200 and "thread-42" not in last_year.content.decode()
    midnight = document.updated_at.replace(hour=0, minute=0, second=0, microsecond=0)
    today = client.get(LIST, {"updated_at__gte": str(midnight)})  # the filter's "Today" link
    assert "thread-42" in today.content.decode()


def test_nobody_deletes_documents_in_admin(client, admin_user, document):
    client.force_login(admin_user)
    assert client.get(f"{LIST}{document.pk}/delete/").status_code == 403
    client.post(LIST, {"action": "delete_selected", "_selected_action": [document.pk], "post": "yes"})
    assert stored("thread-42") is not None


def test_the_list_does_not_load_the_content(client, admin_user, document):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(admin_user)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(LIST).status_code == 200
    document_queries = [q["sql"] for q in queries.captured_queries if "workspace_workingdocument" in q["sql"]]
    assert document_queries
    assert not any('"content"' in sql for sql in document_queries)


def test_the_detail_links_to_the_live_panel(client, admin_user, document):
    client.force_login(admin_user)
    page = client.get(f"{LIST}{document.pk}/change/").content.decode()
    assert '<a href="/workspace/threads/thread-42/">Watch this document live</a>' in page


@pytest.fixture
def edited(document):
    """thread-42 at version 4: written, appended to by an agent, rewritten, appended again."""
    DocumentTools("thread-42", actor="planner").append_to_document(
        text="\nline two", action_and_reasoning="Adding <b>line</b> two."
    )
    DocumentTools("thread-42", actor="writer").update_document(content="fresh start\n", action_and_reasoning="Rewrite.")
    DocumentTools("thread-42", actor="planner").append_to_document(text="more\n", action_and_reasoning="More.")
    return document


def history_url(document):
    return f"{LIST}{document.pk}/history/"


def test_the_history_lists_each_revision_with_who_why_and_how(client, admin_user, edited):
    client.force_login(admin_user)
    page = client.get(history_url(edited)).content.decode()
    rows = page.split('<table id="revisions">')[1].split("</table>")[0].split("<tr>")[2:]
    assert [re.search(r'revisions/(\d+)/">', row).group(1) for row in rows] == ["4", "3", "2", "1"]
    assert "Adding &lt;b&gt;line&lt;/b&gt; two." in rows[2]
    assert "planner" in rows[2] and "append_to_document" in rows[2]
    assert "writer" in rows[1] and "update_document" in rows[1]
    assert "<td>—</td>" in rows[3]  # written through the repository: no actor, no tool


def test_the_history_filters_by_actor_and_by_tool(client, admin_user, edited):
    client.force_login(admin_user)
    by_actor = client.get(history_url(edited), {"actor": "writer"}).content.decode()
    assert by_actor.count('revisions/3/">3</a>') == 1 and 'revisions/2/">2</a>' not in by_actor
    unfiltered = client.get(history_url(edited), {"actor": "", "tool": ""}).content.decode()  # "(any)" twice
    assert all(f'revisions/{version}/">{version}</a>' in unfiltered for version in (1, 2, 3, 4))
    without_tool = client.get(history_url(edited), {"tool": "(none)"}).content.decode()
    assert 'revisions/1/">1</a>' in without_tool and 'revisions/2/">2</a>' not in without_tool
    by_tool = client.get(history_url(edited), {"tool": "append_to_document"}).content.decode()
    assert 'revisions/2/">2</a>' in by_tool and 'revisions/4/">4</a>' in by_tool
    assert 'revisions/3/">3</a>' not in by_tool and 'revisions/1/">1</a>' not in by_tool


def test_the_history_filters_by_source(client, admin_user, edited):
    WorkspaceRepository.restore("thread-42", 2, actor="editor", reason="Back.", source="person")
    client.force_login(admin_user)
    by_person = client.get(history_url(edited), {"source": "person"}).content.decode()
    assert 'revisions/5/">5</a>' in by_person and 'revisions/4/">4</a>' not in by_person
    by_agent = client.get(history_url(edited), {"source": "agent"}).content.decode()
    assert 'revisions/4/">4</a>' in by_agent and 'revisions/5/">5</a>' not in by_agent
    assert "<td>person</td>" in by_person


def test_a_revision_shows_its_content_and_an_escaped_diff(client, admin_user, edited):
    client.force_login(admin_user)
    page = client.get(f"{LIST}{edited.pk}/revisions/2/").content.decode()
    content = page.split('<pre class="revision-content" id="revision-content">')[1].split("</pre>")[0]
    assert (
        content
        == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(1)&quot;&gt;\nline two"
    )
    diff = page.split('<pre class="diff" id="diff">')[1].split("</pre>")[0]
    assert '<span class="add">+line two</span>' in diff
    assert '<span class="same"> &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;' in diff
    assert "<script>alert" not in page


def test_a_revision_that_does_not_exist_is_404(client, admin_user, edited):
    client.force_login(admin_user)
    assert client.get(f"{LIST}{edited.pk}/revisions/99/").status_code == 404


def test_staff_with_the_change_permission_restore_a_version(client, edited):
    client.force_login(staff("view_workingdocument", "change_workingdocument"))
    page = client.get(f"{LIST}{edited.pk}/revisions/2/").content.decode()
    assert "Restore this version" in page

    response = client.post(f"{LIST}{edited.pk}/revisions/2/restore/")

    assert response.status_code == 302
    assert stored("thread-42")["version"] == 5
    assert stored("thread-42")["content"].endswith("\nline two")
    restore = Revision.objects.get(document=edited, version=5)
    assert (restore.op, restore.restored_from, restore.actor, restore.tool) == ("restore", 2, "staffer", None)
    assert restore.source == "person"  # a person restored it, not an agent


def test_restoring_a_version_with_the_current_content_changes_nothing_and_says_so(client, edited):
    client.force_login(staff("view_workingdocument", "change_workingdocument"))
    assert client.post(f"{LIST}{edited.pk}/revisions/2/restore/").status_code == 302  # version 5, as version 2
    response = client.post(f"{LIST}{edited.pk}/revisions/2/restore/", follow=True)
    assert "Version 2 has the current content and title already; nothing changed." in response.content.decode()
    assert stored("thread-42")["version"] == 5
    assert Revision.objects.filter(document=edited).count() == 5


def test_staff_without_the_change_permission_cannot_restore(client, edited):
    client.force_login(staff("view_workingdocument"))
    assert "Restore this version" not in client.get(f"{LIST}{edited.pk}/revisions/2/").content.decode()
    assert client.post(f"{LIST}{edited.pk}/revisions/2/restore/").status_code == 403
    assert stored("thread-42")["version"] == 4


def test_the_detail_links_to_the_history(client, admin_user, edited):
    client.force_login(admin_user)
    page = client.get(f"{LIST}{edited.pk}/change/").content.decode()
    assert f'<a href="{history_url(edited)}">4 revisions: who changed it, when and why</a>' in page


@pytest.mark.parametrize(("lines", "diffed"), [(1000, True), (1001, False)])
def test_the_diff_bound_is_more_than_1000_lines_a_side_as_in_the_panel(lines, diffed):
    from workspace.admin import line_diff

    text = "".join(f"line {n}\n" for n in range(lines))
    assert (line_diff(text, text.replace("line 7\n", "line seven\n"), True) is not None) is diffed


def test_a_diff_too_large_to_compute_quickly_is_not_attempted(client, admin_user):
    many_lines = "".join(f"line {n % 100}\n" for n in range(2000))
    WorkspaceRepository.upsert_document("huge", content=many_lines)
    WorkspaceRepository.upsert_document("huge", content=many_lines.replace("line 7\n", "line seven\n"))
    document = WorkingDocument.objects.get(thread_id="huge")
    client.force_login(admin_user)
    page = client.get(f"{LIST}{document.pk}/revisions/2/").content.decode()
    assert "Too many lines to compare here" in page
    assert "line seven" in page  # the content at that version is still shown


def test_the_first_revision_of_a_document_of_many_lines_is_shown_without_a_diff(client, admin_user, settings):
    # Version 1 has an empty side: a bound on the product of the line counts never applied to it.
    many_lines = "x\n" * 200_000
    WorkspaceRepository.upsert_document("long", content=many_lines)
    document = WorkingDocument.objects.get(thread_id="long")
    client.force_login(admin_user)

    response = client.get(f"{LIST}{document.pk}/revisions/1/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Too many lines to compare here (more than 1000 on a side)" in page
    assert '<span class="add">' not in page
    assert len(page) < len(many_lines) + 64 * 1024  # the content once, and the page around it


def test_past_the_diff_bound_both_versions_are_shown_whole(client, admin_user):
    before = "".join(f"line {n}\n" for n in range(1500))
    WorkspaceRepository.upsert_document("wide", content=before)
    WorkspaceRepository.upsert_document("wide", content=before.replace("line 7\n", "line seven\n"))
    document = WorkingDocument.objects.get(thread_id="wide")
    client.force_login(admin_user)

    page = client.get(f"{LIST}{document.pk}/revisions/2/").content.decode()

    previous = page.split('<pre class="revision-content" id="previous-content">')[1].split("</pre>")[0]
    current = page.split('<pre class="revision-content" id="revision-content">')[1].split("</pre>")[0]
    assert (previous, current) == (before, before.replace("line 7\n", "line seven\n"))


def readable_if_public_writable_if_shared(user, thread_id, action):
    """A policy that tells reading from writing."""
    return thread_id.startswith("public") and (action == "read" or thread_id == "public-shared")


@pytest.fixture
def policy_documents(settings):
    settings.WORKSPACE_ACCESS_POLICY = "tests.history.test_admin.readable_if_public_writable_if_shared"
    for thread_id in ("public-shared", "public-read-only", "private"):
        WorkspaceRepository.upsert_document(thread_id, content=f"{thread_id} v1", title=f"title of {thread_id}")
        WorkspaceRepository.upsert_document(thread_id, content=f"{thread_id} v2")
    return {document.thread_id: document for document in WorkingDocument.objects.all()}


def test_the_list_shows_only_the_documents_the_policy_lets_the_user_read(client, admin_user, policy_documents):
    client.force_login(admin_user)
    page = client.get(LIST).content.decode()
    assert "title of public-shared" in page and "title of public-read-only" in page
    assert "private" not in page
    searched = client.get(LIST, {"q": "title"}).content.decode()
    assert "title of public-shared" in searched and "private" not in searched


def test_documents_the_policy_hides_are_refused_on_every_page(client, admin_user, policy_documents):
    private = policy_documents["private"]
    client.force_login(admin_user)
    for path in ("change/", "history/", "revisions/1/"):
        response = client.get(f"{LIST}{private.pk}/{path}")
        assert response.status_code == 403, path
        assert "private v" not in response.content.decode()
    assert client.post(f"{LIST}{private.pk}/revisions/1/restore/").status_code == 403
    assert stored("private")["version"] == 2


def test_restoring_needs_the_policy_s_write_permission(client, admin_user, policy_documents):
    client.force_login(admin_user)
    read_only = policy_documents["public-read-only"]
    page = client.get(f"{LIST}{read_only.pk}/revisions/1/").content.decode()
    assert "public-read-only v1" in page and "Restore this version" not in page
    assert client.post(f"{LIST}{read_only.pk}/revisions/1/restore/").status_code == 403
    assert stored("public-read-only")["content"] == "public-read-only v2"

    shared = policy_documents["public-shared"]
    assert "Restore this version" in client.get(f"{LIST}{shared.pk}/revisions/1/").content.decode()
    assert client.post(f"{LIST}{shared.pk}/revisions/1/restore/").status_code == 302
    assert stored("public-shared")["content"] == "public-shared v1"


def public_only(user, thread_id):
    """A policy of two arguments: its answer holds for reading and for writing."""
    return thread_id.startswith("public")


def test_a_policy_of_two_arguments_answers_for_reading_and_for_writing(client, admin_user, policy_documents, settings):
    settings.WORKSPACE_ACCESS_POLICY = "tests.history.test_admin.public_only"
    client.force_login(admin_user)
    assert "private" not in client.get(LIST).content.decode()
    read_only = policy_documents["public-read-only"]
    assert client.post(f"{LIST}{read_only.pk}/revisions/1/restore/").status_code == 302
    assert stored("public-read-only")["content"] == "public-read-only v1"


@pytest.mark.parametrize(
    "path",
    [
        "abc/history/",
        "abc/revisions/1/",
        "1%20or%201/history/",
        "{pk}/revisions/99999999999999999999999/",
        "{pk}/revisions/x/",
        "{pk}/revisions/-1/",
        "{pk}/revisions/%C2%B2/",
        "{pk}/revisions/000000000000000000000099999999999999999999/",
    ],
)
def test_a_malformed_id_or_version_in_a_history_url_is_404(client, admin_user, edited, path):
    client.force_login(admin_user)
    url = LIST + path.format(pk=edited.pk)
    assert client.get(url).status_code == 404
    assert client.post(url.replace("/history/", "/revisions/1/") + "restore/").status_code == 404
    assert stored("thread-42")["version"] == 4


@pytest.mark.parametrize("object_id", ["abc", "1%20or%201", "%C2%B2", "-1"])
def test_a_malformed_id_in_a_document_url_is_404(client, admin_user, edited, object_id):
    client.force_login(admin_user)
    assert client.get(f"{LIST}{object_id}/change/").status_code == 404


def test_a_document_lists_its_proposals_and_its_history_filters_by_reviewer(client, admin_user):
    from workspace.models import Proposal

    tools = DocumentTools("reviewed", actor="planner")
    tools.update_document(content="one\n", action_and_reasoning="Start.")
    WorkspaceRepository.set_review("reviewed", True, actor="alice")
    tools.append_to_document(text="<b>two</b>\n", action_and_reasoning="Add <i>two</i>.")
    tools.append_to_document(text="three\n", action_and_reasoning="Add three.")
    first, second = Proposal.objects.order_by("id")
    WorkspaceRepository.decide_proposal("reviewed", first.pk, "all", actor="alice")
    document = WorkingDocument.objects.get(thread_id="reviewed")
    client.force_login(admin_user)

    page = client.get(f"{LIST}{document.pk}/change/").content.decode()
    assert f"<td>{first.pk}</td><td>accepted</td><td>planner (append_to_document)</td>" in page
    assert f"<td>{second.pk}</td><td>open</td>" in page
    assert "Add &lt;i&gt;two&lt;/i&gt;." in page and "<i>two</i>" not in page

    history = client.get(f"{LIST}{document.pk}/history/", {"reviewed_by": "alice"}).content.decode()
    rows = re.findall(r'<th scope="row"><a href="[^"]+">(\d+)</a></th>', history)
    assert rows == ["2"]
    assert f"alice (proposal {first.pk})" in history
    everything = client.get(f"{LIST}{document.pk}/history/", {"reviewed_by": "(none)"}).content.decode()
    assert re.findall(r'<th scope="row"><a href="[^"]+">(\d+)</a></th>', everything) == ["1"]
