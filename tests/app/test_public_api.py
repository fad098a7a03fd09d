"""The host's surface: ``workspace/__init__.py`` names the public API lazily,
``workspace.asgi.with_workspace`` is the one ASGI entry, the app registers its
checks in ``ready()``, and the paths that moved keep working with a warning."""

import importlib
import importlib.util
import subprocess
import sys

import pytest
from django.core import checks

import workspace
from workspace import asgi as workspace_asgi
from workspace.events.handover import HeldStreams
from workspace.mcp.asgi import WorkspaceASGI


def test_importing_workspace_loads_no_models_and_needs_no_settings():
    script = (
        "import sys, workspace; "
        "assert 'DJANGO_SETTINGS_MODULE' not in __import__('os').environ; "
        # workspace.deprecation only: the old paths of moved modules (it imports no model)
        "loaded = [name for name in sys.modules if name.startswith('workspace.')]; "
        "assert loaded == ['workspace.deprecation'], loaded; "
        "assert 'WorkspaceRepository' in dir(workspace); "
        "print(len(workspace.__all__))"
    )
    environment = {"PATH": "", "PYTHONPATH": ":".join(sys.path)}
    answer = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment)
    assert answer.returncode == 0, answer.stderr
    assert int(answer.stdout) == len(workspace.__all__)


@pytest.mark.parametrize("name", workspace.__all__)
def test_every_public_name_resolves_to_the_object_of_its_module(name):
    module = importlib.import_module(workspace._PUBLIC_NAMES[name])
    assert getattr(workspace, name) is getattr(module, name)


def test_all_lists_exactly_the_public_names_and_dir_shows_them():
    assert sorted(workspace.__all__) == sorted(workspace._PUBLIC_NAMES)
    assert set(workspace.__all__) <= set(dir(workspace))
    with pytest.raises(AttributeError, match="no_such_name"):
        workspace.no_such_name  # noqa: B018


def test_the_errors_are_public():
    from workspace import exceptions

    errors = {
        name for name, value in vars(exceptions).items() if isinstance(value, type) and issubclass(value, Exception)
    }
    assert errors <= set(workspace.__all__)


def test_with_workspace_serves_the_streams_and_mcp_around_the_hosts_application():
    async def host(scope, receive, send):
        pass

    application = workspace_asgi.with_workspace(host)
    assert isinstance(application, WorkspaceASGI) and type(application.django) is HeldStreams
    assert application.django.django is host


def test_without_the_mcp_extra_with_workspace_serves_the_streams_only(monkeypatch):
    async def host(scope, receive, send):
        pass

    monkeypatch.setattr(workspace_asgi, "mcp_installed", lambda: False)
    application = workspace_asgi.with_workspace(host)
    assert type(application) is HeldStreams and application.django is host


def test_an_mcp_of_another_generation_leaves_the_streams_served_and_mcp_off(monkeypatch, caplog):
    async def host(scope, receive, send):
        pass

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None if name == "mcp_types" else real_find_spec(name))
    application = workspace_asgi.with_workspace(host)
    assert type(application) is HeldStreams and application.django is host
    assert "not the SDK 2.x" in caplog.text


def test_the_checks_are_registered_by_ready_not_by_importing_the_module():
    from workspace import checks as workspace_checks

    assert workspace_checks.check_settings in checks.registry.registry.get_checks()
    before = len(checks.registry.registry.get_checks())
    importlib.reload(workspace_checks)
    assert len(checks.registry.registry.get_checks()) == before


def test_the_old_path_of_the_async_bridge_still_works_with_a_warning():
    from workspace.utils.async_bridge import as_async_request

    with pytest.warns(DeprecationWarning, match="as_async_request"):
        from workspace.db import as_request
    assert as_request is as_async_request


def test_a_module_that_moved_still_imports_and_each_name_warns_with_its_new_path():
    from workspace.drafts import store

    with pytest.warns(
        DeprecationWarning, match=r"workspace\.draft_store\.add is deprecated: use workspace\.drafts\.store\.add"
    ):
        from workspace.draft_store import add
    assert add is store.add
    import workspace.repository

    assert not hasattr(workspace.repository, "no_such_name")  # an AttributeError, not an ImportError
