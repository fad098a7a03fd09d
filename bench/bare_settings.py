"""The demo project's settings serving one more URL, ``bench/bare/``: the
least a DRF endpoint does (DRF's token authentication, a JSON body parsed and
answered), the ceiling that ``bench/throughput.py`` measures tool calls against."""

from project.settings import *  # noqa: F401,F403

ROOT_URLCONF = "bench.bare_urls"
