// The panel's editor: Edit opens the Markdown source in a text
// box; Save sends it with the version the edit started from; changes by
// others meanwhile are listed beside the editor, never written into it; a
// merged save says whose changes it merged; a conflict keeps the text and
// shows each region's three sides. An unsaved edit is kept in localStorage,
// keyed by thread, and reopened after a reload.
import { describeAuthor, element, notify } from "./dom.js";

function storage(threadId) {
  const key = `workspace-panel:edit:${threadId}`;
  return {
    load() {
      try {
        return JSON.parse(localStorage.getItem(key) || "null");
      } catch {
        return null;
      }
    },
    keep(edit) {
      try {
        localStorage.setItem(key, JSON.stringify(edit));
      } catch (error) {
        console.error(error);  // full or refused: the edit is still in the text box
      }
    },
    forget() {
      localStorage.removeItem(key);
    },
  };
}

function conflictEntry(conflict, index, textBox, keep) {
  const entry = element("li", "", { class: "conflict" });
  entry.append(element("h4", `Conflict ${index + 1}`));
  for (const [label, text] of [["Base (when you started)", conflict.base], ["Current", conflict.current],
    ["Yours", conflict.yours]]) {
    const side = element("div", "", { class: "side" });
    side.append(element("h5", label), element("pre", text));
    entry.append(side);
  }
  if (conflict.truncated) {
    // The server cut the sides to keep its answer small: no side is whole, so none can be taken.
    entry.append(element("p", "These sides are too long to show whole: they are cut. Compare the current " +
      "version in History with your text to resolve this one.", { class: "truncated" }));
    return entry;
  }
  // Taking the current text where yours was makes the next Save merge cleanly.
  const at = conflict.yours ? textBox.value.indexOf(conflict.yours) : -1;
  if (at >= 0 && textBox.value.indexOf(conflict.yours, at + 1) < 0) {
    const take = element("button", `Use the current text in conflict ${index + 1}`, { type: "button" });
    take.addEventListener("click", () => {
      const now = textBox.value.indexOf(conflict.yours);
      if (now >= 0) {
        textBox.value = textBox.value.slice(0, now) + conflict.current +
          textBox.value.slice(now + conflict.yours.length);
        keep();
      }
      take.disabled = true;
    });
    entry.append(take);
  }
  return entry;
}

function othersEntry(event) {
  const entry = element("li");
  const who = describeAuthor({ actor: event.actor, source: event.source });
  entry.append(element("strong", `v${event.version}`), ` ${event.op} by ${who}`);
  if (event.action_and_reasoning) entry.append(element("p", event.action_and_reasoning, { class: "reason" }));
  const text = event.op === "append" ? event.text : event.content;
  if (text !== undefined) entry.append(element("pre", text));
  return entry;
}

/** Wires Edit, Save and Cancel for a user with write permission. */
export function mountEditor(root, client, threadId) {
  const kept = storage(threadId);
  const parts = {
    editor: root.querySelector("#editor"),
    text: root.querySelector("#edit-text"),
    title: root.querySelector("#edit-title"),
    edit: root.querySelector("#edit"),
    conflicts: root.querySelector("#conflicts"),
    others: root.querySelector("#others"),
    othersList: root.querySelector("#others-list"),
  };
  let base = null;  // the version the edit started from; null when not editing

  const keep = () => kept.keep({ base, content: parts.text.value, title: parts.title.value });
  const open = (edit) => {
    base = edit.base;
    parts.text.value = edit.content;
    parts.title.value = edit.title;
    parts.editor.hidden = false;
    parts.edit.hidden = true;
    parts.conflicts.hidden = true;
    parts.othersList.replaceChildren();
    parts.others.hidden = true;
    root.classList.add("editing");
    parts.text.focus();
  };
  const close = () => {
    base = null;
    kept.forget();
    parts.editor.hidden = true;
    parts.others.hidden = true;
    parts.edit.hidden = false;
    root.classList.remove("editing");
  };

  parts.edit.addEventListener("click", () => {
    open({ base: client.state.version, content: client.state.content, title: client.state.title });
    keep();
  });
  parts.text.addEventListener("input", keep);
  parts.title.addEventListener("input", keep);
  root.querySelector("#cancel").addEventListener("click", () => {
    close();
    notify(root, "Edit cancelled; nothing was saved.");
  });
  root.querySelector("#save").addEventListener("click", () => save());
  client.on("change", (state, event) => {
    if (base === null || !event || event.version <= base) return;
    parts.others.hidden = false;
    parts.othersList.prepend(othersEntry(event));
  });

  async function save() {
    notify(root, "Saving…");
    let result;
    try {
      result = await client.save(parts.text.value, { baseVersion: base, title: parts.title.value });
    } catch (error) {
      notify(root, `Not saved: ${error.message}`, "error");
      return;
    }
    if (result.conflicts) {
      parts.conflicts.hidden = false;
      const entries = result.conflicts.map((conflict, index) => conflictEntry(conflict, index, parts.text, keep));
      parts.conflicts.querySelector("ol").replaceChildren(...entries);
      notify(root, `Not saved: your edit conflicts with changes made since version ${base} ` +
        `(now version ${result.currentVersion}). Resolve each conflict in your text, then Save again.`, "error");
      return;
    }
    close();
    const saved = `Saved as version ${result.document.version}.`;
    notify(root, result.merged ? `${saved} Merged with changes by ${result.mergedWith.join(", ") || "others"}.`
      : saved);
  }

  const unsaved = kept.load();
  if (unsaved && typeof unsaved.content === "string") {
    open(unsaved);
    notify(root, `Your unsaved edit (started from version ${unsaved.base}) was kept.`);
  }
}
