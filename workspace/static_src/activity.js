// The panel's activity list: the latest changes, newest first,
// each with version, time, who (agent or person), tool and reason, opening
// its version in the history when clicked; and short notes of what left no
// version (a draft that ended unsaved), in their place.
import { changeButton, element, timeElement } from "./dom.js";

const MAX_NOTES = 50;

function activityEntry(item, open) {
  const entry = element("li", "", { "data-version": String(item.version) });
  entry.append(changeButton(item, open));
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
function entriesOf(items, notes, open) {
  const entries = [];
  let next = 0;  // notes are newest first too
  for (const item of items) {
    while (next < notes.length && notes[next].afterVersion >= item.version) entries.push(noteEntry(notes[next++]));
    entries.push(activityEntry(item, open));
  }
  while (next < notes.length) entries.push(noteEntry(notes[next++]));
  return entries;
}

/**
 * Keeps the list `#activity` in step with the client's activity; a click on
 * an entry calls `open(version)`. Returns {note(text, tool)}: adds a note on
 * top, now (the latest MAX_NOTES are kept).
 */
export function mountActivity(root, client, open) {
  const list = root.querySelector("#activity");
  const older = root.querySelector("#older");
  const notes = [];
  const render = (items, added) => {
    // A new latest change is added on top, so that the live region announces it alone.
    const simple = added && items[0] === added && list.childElementCount === items.length - 1 + notes.length;
    if (simple) list.prepend(activityEntry(added, open));
    else list.replaceChildren(...entriesOf(items, notes, open));
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
        list.replaceChildren(...entriesOf(client.activity, notes, open));
      }
    },
  };
}
