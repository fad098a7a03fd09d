// Small DOM helpers for the panel: elements are built with text only, never
// from HTML strings (the one exception, rendered Markdown, goes through
// render.js's sanitiser).

/** A new `tag` element with `text` as its text and `attributes` set. */
export function element(tag, text = "", attributes = {}) {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** Who made a change, in words: "alice (person)", "an agent", "someone". */
export function describeAuthor(item) {
  const who = item.actor || (item.source === "agent" ? "an agent" : "someone");
  return item.source ? `${who} (${item.source})` : who;
}

/** A <time> for an ISO timestamp, shown in the reader's locale. */
export function timeElement(iso) {
  const node = element("time", "", { datetime: iso });
  const date = new Date(iso);
  node.textContent = Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
  return node;
}

/** Shows `message` in the page's status line (a polite live region). */
export function notify(root, message, kind = "info") {
  const notice = root.querySelector("#notice");
  notice.textContent = message;
  notice.className = `notice ${kind}`;
}
