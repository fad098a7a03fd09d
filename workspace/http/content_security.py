"""The Content-Security-Policy of the app's own HTML pages: each runs only the
app's own scripts and loads nothing from another origin, whatever it shows."""

# The panel: documents are written by agents and untrusted, so the page runs
# only its own script (no inline script, no inline style) and loads nothing
# else, whatever a document contains.
PANEL = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)

# The API's docs page (Redoc): Redoc draws its attribution logo from a CDN (no
# option of Redoc's turns it off), and img-src refuses it before any request
# leaves (Redoc then leaves the logo out). Redoc's script inserts its styles
# (style-src 'unsafe-inline': they are Redoc's and the schema's own, not a
# document's), and its search runs in a blob: worker.
API_DOCS = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
    "img-src 'self' data:; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
)
