import pytest


@pytest.fixture(scope="module", autouse=True)
def one_chromium_for_a_browser_module(request):
    """The pages of a browser test module share one Chromium, each in a context of its own."""
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    from tests.support.browser import one_chromium

    with one_chromium():
        yield


@pytest.fixture(scope="module")
def uvicorn_server(django_db_setup):
    """A server whose event streams uvicorn holds, for what the panel does
    the same whichever server carries its events: each transport's own
    tests take ``stream_server``, run through each."""
    from tests.support import start_stream_server

    server = start_stream_server("uvicorn")
    yield server
    server.stop()
