"""Settings for running behind HTTPS, as the demo project reads them from the environment."""

import os
import subprocess
import sys

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from tests.support.live import REPOSITORY

STRONG_KEY = "k" * 10 + "".join(chr(ord("a") + n % 26) + str(n % 10) for n in range(40))


def deploy_check(**environment) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": STRONG_KEY,
        **environment,
    }
    env.pop("DATABASE_URL", None)
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"], cwd=REPOSITORY, env=env, capture_output=True, text=True
    )
    return result.stdout + result.stderr


def test_with_django_https_the_deploy_check_finds_no_issue():
    assert "System check identified no issues" in deploy_check(DJANGO_HTTPS="1")


def test_without_it_the_deploy_check_says_what_is_missing():
    report = deploy_check()
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in report


@pytest.mark.django_db
@pytest.mark.parametrize("trusted, status", [(True, 302), (False, 403)])
def test_admin_login_behind_a_tls_proxy_needs_x_forwarded_proto_trusted(trusted, status):
    get_user_model().objects.create_superuser("boss", password="pw")
    proxy = {"SECURE_PROXY_SSL_HEADER": ("HTTP_X_FORWARDED_PROTO", "https")} if trusted else {}
    with override_settings(**proxy):
        client = Client(enforce_csrf_checks=True)
        client.get("/admin/login/", HTTP_X_FORWARDED_PROTO="https", HTTP_HOST="testserver")
        response = client.post(
            "/admin/login/",
            {"username": "boss", "password": "pw", "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
            HTTP_X_FORWARDED_PROTO="https",
            HTTP_ORIGIN="https://testserver",
            HTTP_HOST="testserver",
        )
    assert response.status_code == status


WSGI_WORKER = """
import sys
from project.wsgi import application
print("views loaded at start:", "workspace.http.views" in sys.modules)
import jwt
from django.test import Client
status = Client(HTTP_HOST="localhost").get("/api/workspace/tools/").status_code
token = jwt.encode({"sub": "x"}, "k" * 32, algorithm="HS256")
print(status, jwt.decode(token, "k" * 32, algorithms=["HS256"]), "cryptography" in sys.modules)
try:
    import cryptography.x509
except ImportError as error:
    print(error)
"""


def test_a_wsgi_worker_loads_the_api_at_start_and_signs_its_tokens_without_cryptography():
    """Its first request is not slowed by loading the views; and 8 MB a worker
    that MCP's dependency would otherwise cost (project/wsgi.py)."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "project.settings"}
    env.pop("DATABASE_URL", None)
    worker = [sys.executable, "-c", WSGI_WORKER]
    result = subprocess.run(worker, cwd=REPOSITORY, env=env, capture_output=True, text=True)
    assert result.stdout.splitlines() == [
        "views loaded at start: True",
        "401 {'sub': 'x'} False",
        "cryptography is kept out of the WSGI workers: see project/wsgi.py",
    ], result.stdout + result.stderr
