import pytest
from django.test import override_settings

from tests.support import workspace_messages


def test_the_demo_settings_pass():
    assert workspace_messages() == {}


@pytest.mark.parametrize("value", [0, -5, "1000", 1.5, True, None])
def test_max_document_chars_must_be_a_positive_integer(value):
    with override_settings(WORKSPACE_MAX_DOCUMENT_CHARS=value):
        messages = workspace_messages()
    assert set(messages) == {"workspace.E001"}
    assert messages["workspace.E001"].hint


@pytest.mark.parametrize("value", ["workspace.access.nope", "no_such_module.policy", 42, "workspace.conf.DEFAULTS"])
def test_access_policy_must_name_a_callable(value):
    with override_settings(WORKSPACE_ACCESS_POLICY=value):
        assert set(workspace_messages()) == {"workspace.E002"}


def test_an_unset_access_policy_is_a_warning(settings):
    del settings.WORKSPACE_ACCESS_POLICY
    assert set(workspace_messages()) == {"workspace.W001"}


def test_tool_collections_must_be_a_list_of_paths():
    with override_settings(WORKSPACE_TOOL_COLLECTIONS="workspace.tools.documents.DocumentTools"):
        assert set(workspace_messages()) == {"workspace.E003"}


@pytest.mark.parametrize("path", ["workspace.tools.documents.Nope", "workspace.models.WorkingDocument"])
def test_tool_collections_must_name_classes_with_tools(path):
    with override_settings(WORKSPACE_TOOL_COLLECTIONS=[path]):
        assert set(workspace_messages()) == {"workspace.E004"}


def test_a_tool_declared_twice_is_an_error():
    path = "workspace.tools.documents.DocumentTools"
    with override_settings(WORKSPACE_TOOL_COLLECTIONS=[path, path]):
        messages = workspace_messages()
    assert set(messages) == {"workspace.E005"}
    assert "update_document" in messages["workspace.E005"].msg


def test_an_upload_limit_too_small_for_a_full_document_is_a_warning():
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=2_621_440):  # Django's default
        messages = workspace_messages()
    assert set(messages) == {"workspace.W002"}
    assert "12065536" in messages["workspace.W002"].hint


@pytest.mark.parametrize("size", [None, 12 * 1_000_000 + 64 * 1024])
def test_an_upload_limit_that_fits_a_full_document_passes(size):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=size):
        assert workspace_messages() == {}


def test_event_streams_without_the_policy_are_an_error(settings):
    del settings.EVENTSTREAM_CHANNELMANAGER_CLASS
    assert set(workspace_messages()) == {"workspace.E007"}


def test_event_storage_other_than_the_workspace_one_is_an_error(settings):
    settings.EVENTSTREAM_STORAGE_CLASS = "django_eventstream.storage.DjangoModelStorage"
    assert set(workspace_messages()) == {"workspace.E010"}


@pytest.mark.parametrize("value", [-1, "65536", 1.5, True, None])
def test_event_max_chars_must_be_a_non_negative_integer(value):
    with override_settings(WORKSPACE_EVENT_MAX_CHARS=value):
        assert set(workspace_messages()) == {"workspace.E008"}


@pytest.mark.parametrize("value", [0, -3, "30", 2.5, True])
def test_revision_keep_days_must_be_none_or_a_positive_integer(value):
    with override_settings(WORKSPACE_REVISION_KEEP_DAYS=value):
        assert set(workspace_messages()) == {"workspace.E009"}


def test_revision_keep_days_may_be_set():
    with override_settings(WORKSPACE_REVISION_KEEP_DAYS=30):
        assert workspace_messages() == {}


def test_live_events_need_django_eventstream_installed(settings):
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "django_eventstream"]
    assert "workspace.E006" in workspace_messages()


@pytest.mark.parametrize("name", ["WORKSPACE_RATE_WRITES", "WORKSPACE_RATE_READS"])
@pytest.mark.parametrize("value", ["fast", "10/fortnight", 600, "0/min"])
def test_rates_must_be_in_drf_notation(name, value):
    with override_settings(**{name: value}):
        assert set(workspace_messages()) == {"workspace.E011"}


@pytest.mark.parametrize("value", [0, -1, "20", None])
def test_max_streams_per_user_must_be_a_positive_integer(value):
    with override_settings(WORKSPACE_MAX_STREAMS_PER_USER=value):
        assert set(workspace_messages()) == {"workspace.E012"}


@pytest.mark.parametrize("value", [0, -1, "100", None, True])
def test_max_drafts_per_user_must_be_a_positive_integer(value):
    with override_settings(WORKSPACE_MAX_DRAFTS_PER_USER=value):
        messages = workspace_messages()
    assert set(messages) == {"workspace.E021"}
    assert "WORKSPACE_MAX_DRAFTS_PER_USER must be a positive integer" in messages["workspace.E021"].msg
    assert "one user may have open at once" in messages["workspace.E021"].hint


GRIP_MIDDLEWARE = "django_grip.GripMiddleware"


def test_pushpin_settings_with_a_key_and_the_middleware_pass(settings):
    settings.GRIP_URL = "http://127.0.0.1:5561?key=shared-secret"
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, GRIP_MIDDLEWARE]
    assert workspace_messages() == {}


def test_pushpin_without_django_grips_middleware_is_an_error(settings):
    settings.GRIP_URL = "http://127.0.0.1:5561?key=shared-secret"
    assert set(workspace_messages()) == {"workspace.E013"}


def test_pushpin_without_a_key_is_an_error(settings):
    """Without one, django-grip takes any request with a Grip-Sig header as Pushpin's."""
    settings.GRIP_URL = "http://127.0.0.1:5561"
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, GRIP_MIDDLEWARE]
    assert set(workspace_messages()) == {"workspace.E014"}


def test_pushpin_named_twice_is_an_error(settings):
    settings.GRIP_URL = "http://127.0.0.1:5561?key=shared-secret"
    settings.GRIP_PROXIES = [{"control_uri": "http://127.0.0.1:5561", "key": "shared-secret"}]
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, GRIP_MIDDLEWARE]
    assert set(workspace_messages()) == {"workspace.E015"}
