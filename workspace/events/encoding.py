"""How event data is written: JSON with characters as they are, and whether a value fits an event."""

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder

from ..conf import conf


def encode(data: Any) -> str:
    """As JSON, characters as they are (only control characters escaped)."""
    return json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False)


def fits(value: Any) -> bool:
    """Whether ``value`` encodes within about WORKSPACE_EVENT_MAX_CHARS characters
    (control characters take six each once escaped)."""
    limit = conf.EVENT_MAX_CHARS
    return (len(value) <= limit if isinstance(value, str) else True) and len(encode(value)) <= 2 * limit + 1024
