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

/** The line that names a change: version, time, who (agent or person), tool and op. */
export function changeHead(item, tag = "p") {
  const head = element(tag, "", { class: "activity-head" });
  head.append(element("strong", `v${item.version}`), " · ", timeElement(item.time), " · ");
  head.append(element("span", describeAuthor(item), { class: `author ${item.source || ""}` }));
  if (item.tool) head.append(" · ", element("code", item.tool, { class: "tool" }));
  if (item.op) head.append(" · ", element("span", item.op, { class: "op" }));
  if (item.reviewedBy) head.append(" · ", element("span", `accepted by ${item.reviewedBy}`, { class: "reviewed" }));
  return head;
}

/** A change as a button that opens its version (`open(version)`): its head line and its reason. */
export function changeButton(item, open) {
  const button = element("button", "", { type: "button", class: "change", title: `Open version ${item.version}` });
  button.append(changeHead(item, "span"));
  const reason = item.reason + (item.reasonTruncated ? " …" : "");
  if (reason) button.append(element("span", reason, { class: "reason" }));
  button.addEventListener("click", () => open(item.version));
  return button;
}

const NOTICE_MS = 8000;
let noticeTimer = null;

/**
 * Shows `message` as the page's notice (a toast in a polite live region;
 * `kind` "info", "success" or "error"), with a button for `action`
 * ({label, run}) if given. It stays until the next one; a success or an
 * info without action fades after a while, an error stays.
 */
export function notify(root, message, kind = "info", action = null) {
  const notice = root.querySelector("#notice");
  const text = element("span", message, { class: "notice-text" });
  notice.replaceChildren(text);
  if (action) {
    const button = element("button", action.label, { type: "button", class: "notice-action" });
    button.addEventListener("click", () => {
      button.disabled = true;
      action.run();
    });
    notice.append(button);
  }
  notice.className = `notice ${kind}`;
  notice.hidden = false;
  clearTimeout(noticeTimer);
  if (kind !== "error" && !action) noticeTimer = setTimeout(() => notice.classList.add("faded"), NOTICE_MS);
}
