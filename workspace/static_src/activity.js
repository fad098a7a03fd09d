// The panel's activity list: the latest changes, newest first,
// each with version, time, who (agent or person), tool and reason; and short
// notes of what left no version (a draft that ended unsaved), in their place.
import { describeAuthor, element, timeElement } from "./dom.js";

const MAX_NOTES = 50;

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

function noteEntry(note) {
  const entry = element("li", "", { class: "activity-note" });
  const head = element("p", "", { class: "activity-head" });
  head.append(timeElement(note.time), " · ", element("span", note.text, { class: "note" }));
  if (note.tool) head.append(" · ", element("code", note.tool, { class: "tool" }));
  entry.append(head);
  return entry;
}

/** The entries of `items` (newest first) with each note above the change that was newest when it was made. */
function entriesOf(items, notes) {
  const entries = [];
  let next = 0;  // notes are newest first too
  for (const item of items) {
    while (next < notes.length && notes[next].afterVersion >= item.version) entries.push(noteEntry(notes[next++]));
    entries.push(activityEntry(item));
  }
  while (next < notes.length) entries.push(noteEntry(notes[next++]));
  return entries;
}

/**
 * Keeps the list `#activity` in step with the client's activity. Returns
 * {note(text, tool)}: adds a note on top, now (the latest MAX_NOTES are kept).
 */
export function mountActivity(root, client) {
  const list = root.querySelector("#activity");
  const older = root.querySelector("#older");
  const notes = [];
  const render = (items, added) => {
    // A new latest change is added on top, so that the live region announces it alone.
    const simple = added && items[0] === added && list.childElementCount === items.length - 1 + notes.length;
    if (simple) list.prepend(activityEntry(added));
    else list.replaceChildren(...entriesOf(items, notes));
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
  return {
    note(text, tool = null) {
      const note = { text, tool, time: new Date().toISOString(), afterVersion: client.state.version };
      notes.unshift(note);
      list.prepend(noteEntry(note));
      if (notes.length > MAX_NOTES) {
        notes.pop();
        list.replaceChildren(...entriesOf(client.activity, notes));
      }
    },
  };
}
