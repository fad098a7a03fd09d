// The live panel: shows one thread's document and keeps it current.
//
// Each `document` event carries a version. The next version is applied
// (append its text, or replace the content); an older one is ignored; a gap,
// a `stream-reset` or an event whose text was too large to carry (`omitted`)
// means the document is fetched again. Content is only ever set as text,
// never parsed as HTML.
(function () {
  "use strict";

  const panel = document.getElementById("panel");
  const view = {
    title: document.getElementById("title"),
    version: document.getElementById("version"),
    length: document.getElementById("length"),
    content: document.getElementById("content"),
    status: document.getElementById("status"),
  };
  const RECONNECT_DELAY_MS = 3000;

  let current = { version: 0, title: "", length: 0, content: "" };
  let source = null;
  let fetching = false;
  let fetchAgain = false;  // asked for while a fetch was under way: it may predate the news

  function show() {
    view.title.textContent = current.title || "Untitled document";
    view.version.textContent = String(current.version);
    view.length.textContent = String(current.length);
    view.content.textContent = current.content;
  }

  function setStatus(text) {
    view.status.textContent = text;
    view.status.className = "status " + text;
  }

  function refetch() {
    if (fetching) { fetchAgain = true; return; }
    fetching = true;
    fetch(panel.dataset.documentUrl, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (response) {
        if (response.status === 404) return { version: 0, title: "", length: 0, content: "" };
        if (!response.ok) throw new Error("document request failed: " + response.status);
        return response.json();
      })
      .then(function (fetched) {
        if (source && source.readyState === EventSource.OPEN) setStatus("live");
        if (fetched.version >= current.version) {
          current = { version: fetched.version, title: fetched.title, length: fetched.length, content: fetched.content };
          show();
        }
      })
      .catch(function (error) {
        console.error(error);
        setStatus("offline");
        fetchAgain = true;  // try again shortly: what is shown may be stale
        return new Promise(function (resolve) { setTimeout(resolve, RECONNECT_DELAY_MS); });
      })
      .finally(function () {
        fetching = false;
        if (fetchAgain) { fetchAgain = false; refetch(); }
      });
  }

  function apply(event) {
    if (event.version <= current.version) return;  // already shown
    if (event.version !== current.version + 1) { refetch(); return; }  // missed one
    if (event.omitted) { refetch(); return; }  // too large to carry: read the document
    const content = event.op === "append" ? current.content + event.text : event.content;
    current = { version: event.version, title: event.title, length: event.length, content: content };
    show();
  }

  function connect() {
    const stream = new EventSource(panel.dataset.eventsUrl);
    source = stream;
    stream.addEventListener("open", function () { setStatus("live"); refetch(); });
    stream.addEventListener("document", function (message) { apply(JSON.parse(message.data)); });
    stream.addEventListener("stream-reset", function () { refetch(); });
    stream.addEventListener("error", function () {
      setStatus("offline");
      // EventSource retries by itself unless the server refused the stream.
      if (stream.readyState === EventSource.CLOSED) setTimeout(connect, RECONNECT_DELAY_MS);
    });
    stream.addEventListener("stream-error", function () {
      stream.close();  // django-eventstream refuses to resume after one
      setStatus("offline");
      setTimeout(connect, RECONNECT_DELAY_MS);
    });
  }

  show();
  connect();
})();
