"""The panel's own sign-in page, for hosts without one (README, "Use it in your Django project")."""

import pytest
from django.test import override_settings

pytestmark = pytest.mark.django_db


@override_settings(LOGIN_URL="workspace_panel:login")
def test_a_user_who_is_not_staff_signs_in_on_the_panels_page_and_lands_on_the_panel(client, user):
    assert not user.is_staff
    signed_out = client.get("/workspace/threads/t-1/")
    assert signed_out.status_code == 302
    assert signed_out["Location"] == "/workspace/login/?next=/workspace/threads/t-1/"

    page = client.get(signed_out["Location"])
    assert page.status_code == 200
    assert 'name="next" value="/workspace/threads/t-1/"' in page.content.decode()

    signed_in = client.post(
        "/workspace/login/", {"username": user.username, "password": "pw", "next": "/workspace/threads/t-1/"}
    )
    assert signed_in.status_code == 302
    assert signed_in["Location"] == "/workspace/threads/t-1/"
    assert client.get("/workspace/threads/t-1/").status_code == 200


def test_a_wrong_password_signs_nobody_in(client, user):
    answer = client.post(
        "/workspace/login/", {"username": user.username, "password": "wrong", "next": "/workspace/threads/t-1/"}
    )
    assert answer.status_code == 200
    assert "did not match" in answer.content.decode()
    assert client.get("/workspace/threads/t-1/").status_code == 302
