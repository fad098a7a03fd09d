// The panel's editor: Edit opens the Markdown source in a text box; Save
// sends it, with the person's optional reason ("Why"), from the version the
// edit started from; changes by others meanwhile are listed beside the
// editor, never written into it; a merged save says whose changes it merged.
//
// A conflict never traps the person: the editor moves its base to the
// current version and holds the merge of everything that merged cleanly
// (merge3.js), each conflicting region shown with its three sides and a
// choice (keep mine, take theirs, keep both, or edit by hand). Save then
// sends the resolved text from the current version, and a newer conflict is
// resolved the same way. An unsaved edit is kept in localStorage, keyed by
// thread, and reopened after a reload; Cancel asks before dropping typed text.
import { describeAuthor, element, notify } from "./dom.js";
import { mergeParts, RESOLUTIONS, resolvedText } from "./merge3.js";

const CHOICES = [
  ["mine", "Keep mine"],
  ["theirs", "Take theirs"],
  ["both", "Keep both (mine, then theirs)"],
  ["hand", "Edit by hand"],
];
const TITLE_CHOICES = CHOICES.filter(([way]) => way !== "both");

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

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const names = (authors) => (authors.length ? authors.join(", ") : "someone");

/** The title a person's edit leaves: whichever side changed it, or null when both did, differently. */
function mergedTitle(base, current, yours) {
  if (yours === base || current === yours) return current;
  return current === base ? yours : null;
}

function othersEntry(event) {
  const entry = element("li");
  const who = describeAuthor({ actor: event.actor, source: event.source });
  entry.append(element("strong", `v${event.version}`), ` ${event.revision_op || event.op} by ${who}`);
  if (event.action_and_reasoning) entry.append(element("p", event.action_and_reasoning, { class: "reason" }));
  const text = event.op === "append" ? event.text : event.content;
  if (text !== undefined) entry.append(element("pre", text));
  return entry;
}

/** One conflict's three sides and its choice; `choose(choice)` is told each choice. */
function conflictEntry(number, sides, ways, choose, multiline = true) {
  const entry = element("li", "", { class: "conflict", "data-conflict": String(number) });
  entry.append(element("h4", number ? `Conflict ${number}` : "Title"));
  const grid = element("div", "", { class: "sides" });
  for (const [label, text] of sides) {
    const side = element("div", "", { class: "side" });
    side.append(element("h5", label), element("pre", text || "(nothing)", { class: text ? "" : "empty" }));
    grid.append(side);
  }
  const what = number ? `conflict ${number}` : "the title";
  const choice = element("fieldset", "", { class: "choice" });
  choice.append(element("legend", `Resolve ${what}`));
  const hand = element(multiline ? "textarea" : "input", "", { "aria-label": `Your text for ${what}`, class: "hand" });
  hand.value = sides[2][1];
  hand.hidden = true;
  for (const [way, label] of ways) {
    const option = element("label", "", { class: "option" });
    const radio = element("input", "", { type: "radio", name: `resolve-${number}`, value: way });
    radio.addEventListener("change", () => {
      hand.hidden = way !== "hand";
      choose({ way, text: hand.value });
      if (way === "hand") hand.focus();
    });
    option.append(radio, ` ${label}`);
    choice.append(option);
  }
  hand.addEventListener("input", () => choose({ way: "hand", text: hand.value }));
  choice.append(hand);
  entry.append(grid, choice);
  return entry;
}

/** A stretch that merged cleanly, folded: context for the conflicts around it. */
function cleanEntry(text) {
  const entry = element("li", "", { class: "merged-part" });
  const folded = element("details");
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  folded.append(element("summary", `${plural(lines, "line")} merged cleanly`), element("pre", text));
  entry.append(folded);
  return entry;
}

/** Wires Edit, Save, Cancel and conflict resolution for a user with write permission. */
export function mountEditor(root, client, threadId, limits = {}) {
  const kept = storage(threadId);
  const parts = {
    editor: root.querySelector("#editor"),
    text: root.querySelector("#edit-text"),
    textLabel: root.querySelector("label[for=edit-text]"),
    title: root.querySelector("#edit-title"),
    reason: root.querySelector("#edit-reason"),
    edit: root.querySelector("#edit"),
    conflicts: root.querySelector("#conflicts"),
    conflictsIntro: root.querySelector("#conflicts-intro"),
    others: root.querySelector("#others"),
    othersList: root.querySelector("#others-list"),
  };
  let base = null;  // the version the edit started from; null when not editing
  let typed = false;  // whether the person changed anything since Edit
  let resolving = null;  // while a conflict is resolved: {version, parts, choices, title, titleConflict, authors}

  const keep = () => kept.keep({ base, content: parts.text.value, title: parts.title.value, typed });
  const showResolving = (on) => {
    parts.text.hidden = on;
    parts.textLabel.hidden = on;
    parts.title.readOnly = on;
    parts.conflicts.hidden = !on;
  };
  const open = (edit) => {
    base = edit.base;
    typed = Boolean(edit.typed);
    resolving = null;
    parts.text.value = edit.content;
    parts.title.value = edit.title;
    parts.reason.value = "";
    showResolving(false);
    parts.editor.hidden = false;
    parts.edit.hidden = true;
    parts.othersList.replaceChildren();
    parts.others.hidden = true;
    root.classList.add("editing");
    parts.text.focus();
  };
  const close = () => {
    base = null;
    resolving = null;
    kept.forget();
    showResolving(false);
    parts.editor.hidden = true;
    parts.others.hidden = true;
    parts.edit.hidden = false;
    root.classList.remove("editing");
    parts.edit.focus();
  };

  parts.edit.addEventListener("click", () => {
    open({ base: client.state.version, content: client.state.content, title: client.state.title });
    keep();
  });
  const typing = () => {
    typed = true;
    keep();
  };
  parts.text.addEventListener("input", typing);
  parts.title.addEventListener("input", typing);
  root.querySelector("#cancel").addEventListener("click", () => {
    if ((typed || resolving) && !window.confirm("Drop your edit? What you typed is not saved and will be lost.")) {
      return;
    }
    close();
    notify(root, "Edit cancelled; nothing was saved.");
  });
  root.querySelector("#save").addEventListener("click", () => save());
  client.on("change", (state, event) => {
    const since = resolving ? resolving.version : base;
    if (since === null || !event || event.version <= since) return;
    parts.others.hidden = false;
    parts.othersList.prepend(othersEntry(event));
  });

  /** What Save sends: the text, the title and the version they start from; null while a choice is missing. */
  function toSave() {
    if (!resolving) return { content: parts.text.value, title: parts.title.value, baseVersion: base };
    const content = resolvedText(resolving.parts, resolving.choices);
    const missing = resolving.parts.filter((part) => part.conflict).findIndex((_, k) => !resolving.choices[k]);
    if (content === null) return { missing: missing + 1 };
    let title = resolving.title;
    if (resolving.titleConflict) {
      const choice = resolving.titleChoice;
      if (!choice) return { missing: 0 };
      title = RESOLUTIONS[choice.way](resolving.titleConflict, choice.text);
    }
    return { content, title, baseVersion: resolving.version };
  }

  async function save() {
    const sending = toSave();
    if (sending.missing !== undefined) {
      const what = sending.missing ? `conflict ${sending.missing}` : "the title";
      notify(root, `Not saved yet: choose how to resolve ${what}.`, "error");
      const first = parts.conflicts.querySelector(`[data-conflict="${sending.missing}"] input[type=radio]`);
      if (first) first.focus();
      return;
    }
    const reason = parts.reason.value.trim();
    const versionBefore = client.state.version;
    const resolved = resolving;
    notify(root, "Saving…");
    let result;
    try {
      result = await client.save(sending.content, { baseVersion: sending.baseVersion, title: sending.title, reason });
    } catch (error) {
      notify(root, `Not saved: ${error.message}`, "error");
      return;
    }
    if (result.conflicts) {
      await startResolving(sending, result.currentVersion);
      return;
    }
    close();
    const version = result.document.version;
    if (version <= versionBefore && !result.merged) {
      notify(root, `Nothing to save: your text is already version ${version}.`);
    } else if (version <= versionBefore) {
      notify(root, `Nothing new to save: the changes by ${names(result.mergedWith)} already give your text ` +
        `(version ${version}).`);
    } else if (resolved) {
      const count = resolved.parts.filter((part) => part.conflict).length + (resolved.titleConflict ? 1 : 0);
      const merged = result.merged ? ` Merged with changes by ${names(result.mergedWith)} too.` : "";
      notify(root, `Saved as version ${version}, resolving ${plural(count, "conflict")} with the changes by ` +
        `${names(resolved.authors)}.${merged}`, "success");
    } else {
      notify(root, result.merged ? `Saved as version ${version}. Merged with changes by ${names(result.mergedWith)}.`
        : `Saved as version ${version}.`, "success");
    }
  }

  /** Holds the merge of `yours` (what Save sent) with the current version, for the person to resolve. */
  async function startResolving(yours, currentVersion) {
    const from = yours.baseVersion;
    notify(root, `Not saved: your edit conflicts with changes made since version ${from}. Opening them…`, "error");
    let baseRevision;
    let current;
    let authors;
    try {
      [baseRevision, current, authors] = await Promise.all([
        from > 0 ? client.revision(from) : { content: "", title: "" },
        client.revision(currentVersion),
        client.authorsBetween(from, currentVersion + 1),
      ]);
    } catch (error) {
      notify(root, `Not saved: your edit conflicts with version ${currentVersion}, which cannot be read ` +
        `(${error.message}). Your text is kept: Save again.`, "error");
      return;
    }
    const title = mergedTitle(baseRevision.title, current.title, yours.title);
    resolving = {
      version: currentVersion,
      parts: mergeParts(baseRevision.content, current.content, yours.content, limits),
      choices: [],
      title,
      titleConflict: title === null ? { base: baseRevision.title, current: current.title, yours: yours.title } : null,
      authors,
    };
    showConflicts(from);
  }

  function showConflicts(from) {
    const sides = (conflict) => [[`Base (version ${from}, when you started)`, conflict.base],
      [`Theirs (version ${resolving.version}, by ${names(resolving.authors)})`, conflict.current],
      ["Mine", conflict.yours]];
    const entries = [];
    if (resolving.titleConflict) {
      entries.push(conflictEntry(0, sides(resolving.titleConflict), TITLE_CHOICES, (choice) => {
        resolving.titleChoice = choice;
      }, false));
    }
    let k = 0;
    for (const part of resolving.parts) {
      if (part.text !== undefined) {
        entries.push(cleanEntry(part.text));
        continue;
      }
      const index = k++;
      entries.push(conflictEntry(index + 1, sides(part.conflict), CHOICES, (choice) => {
        resolving.choices[index] = choice;
      }));
    }
    const count = k + (resolving.titleConflict ? 1 : 0);
    parts.conflicts.querySelector("ol").replaceChildren(...entries);
    parts.othersList.replaceChildren();  // what changed up to the new base is in the merge
    parts.others.hidden = true;
    showResolving(true);
    if (!count) {
      parts.conflictsIntro.textContent = `Your edit now merges cleanly with version ${resolving.version}: ` +
        "Save to apply it.";
      notify(root, `Your edit merges cleanly with version ${resolving.version} once compared again: Save to apply it.`);
      return;
    }
    parts.conflictsIntro.textContent = `Nothing was saved. Your edit and the changes by ${names(resolving.authors)} ` +
      `since version ${from} changed the same ${count === 1 ? "region" : "regions"} differently. Everything else ` +
      `is merged. Choose for each conflict, then Save: it saves from version ${resolving.version}.`;
    notify(root, `Not saved: ${plural(count, "conflict")} with the changes by ${names(resolving.authors)}. ` +
      "Choose for each, then Save.", "error");
    const first = parts.conflicts.querySelector("input[type=radio]");
    if (first) first.focus();
  }

  const unsaved = kept.load();
  if (unsaved && typeof unsaved.content === "string") {
    open(unsaved);
    notify(root, `Your unsaved edit (started from version ${unsaved.base}) was kept.`);
  }
}
