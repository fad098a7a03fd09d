// The panel's activity list (SPEC 8.3): the latest changes, newest first,
// each with version, time, who (agent or person), tool and reason.
import { describeAuthor, element, timeElement } from "./dom.js";

function activityEntry(item) {
  const entry = element("li", "", { "data-version": String(item.version) });
  const head = element("p", "", { class: "activity-head" });
  head.append(element("strong", `v${item.version}`), " · ", timeElement(item.time), " · ");
  head.append(element("span", describeAuthor(item), { class: `author ${item.source || ""}` }));
  if (item.tool) head.append(" · ", element("code", item.tool, { class: "tool" }));
  if (item.op) head.append(" · ", element("span", item.op, { class: "op" }));
  entry.append(head);
  const reason = item.reason + (item.reasonTruncated ? " …" : "");
  if (reason) entry.append(element("p", reason, { class: "reason" }));
  return entry;
}

/** Keeps the list `#activity` in step with the client's activity. */
export function mountActivity(root, client) {
  const list = root.querySelector("#activity");
  const older = root.querySelector("#older");
  const render = (items, added) => {
    // A new latest change is added on top, so that the live region announces it alone.
    if (added && items[0] === added && list.childElementCount === items.length - 1) list.prepend(activityEntry(added));
    else list.replaceChildren(...items.map(activityEntry));
    older.hidden = !items.length || items[items.length - 1].version <= 1;
  };
  client.on("activity", render);
  older.addEventListener("click", async () => {
    older.disabled = true;
    try {
      await client.loadOlderActivity();
    } finally {
      older.disabled = false;
    }
  });
  render(client.activity);
}
