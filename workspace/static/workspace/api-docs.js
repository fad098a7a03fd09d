// The API docs page's script (workspace/templates/workspace/api_docs.html):
// starts Redoc on the schema named by the page, with the host's
// SPECTACULAR_SETTINGS["REDOC_UI_SETTINGS"], if any, as the page gives them.
// A file of its own because the page's Content-Security-Policy allows no inline script.
const container = document.getElementById("redoc-container");
const settings = container.dataset.settings ? JSON.parse(container.dataset.settings) : {};
Redoc.init(container.dataset.specUrl, settings, container);
