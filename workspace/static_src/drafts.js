// The drafts being written in the panel: each open draft in its own
// group, growing live, rendered as the document is (incremental.js: the same
// Markdown rules and sanitiser), marked "Not yet saved" with who writes it and
// with which tool. A replacement (update_document's whole new document,
// edit_document's new text) is shown just above the document; an append after
// the document's end; each in the order the drafts arrived. The drafts are
// rendered at most once an animation frame, re-rendering only the blocks a
// delta changed. Nothing here touches the editor.
import { element } from "./dom.js";
import { BlockView } from "./incremental.js";

const UNSAVED_OUTCOMES = new Set(["failed", "cancelled", "expired"]);
const OMITTED_NOTE = "The rest of this draft is too long to show while it is written; it appears once saved.";
// A live region is announced when its text changes after it is in the page, not when it arrives with its text.
const ANNOUNCE_AFTER_MS = 150;

function placeOf(draft) {
  return draft.field === "text" ? "end" : "over";
}

function whatDraftDoes(draft) {
  if (draft.field === "text") return "is writing an addition to the end of the document";
  if (draft.field === "new_str") return "is writing a replacement for part of the document";
  return draft.title ? `is writing a new version of the document, titled “${draft.title}”` :
    "is writing a new version of the document";
}

/** The draft's marker line, in words: not yet saved, who, what, with which tool. */
export function draftMarker(draft) {
  return `Not yet saved: ${draft.actor || "an agent"} ${whatDraftDoes(draft)} (${draft.tool}).`;
}

let shownCount = 0;  // for the ids that name each draft's group

/** A draft's group: its marker (the only live part), its rendered text and the note when it is cut. */
function draftElements(callId, outerDefinitions) {
  shownCount += 1;
  const markerId = `draft-marker-${shownCount}`;
  const node = element("div", "", { class: "draft", role: "group", "aria-labelledby": markerId,
    "data-call-id": callId });
  const marker = element("p", "", { class: "draft-marker", id: markerId, "aria-live": "polite" });
  const body = element("div", "", { class: "markdown draft-body", "aria-busy": "true" });
  const omitted = element("p", OMITTED_NOTE, { class: "draft-omitted" });
  omitted.hidden = true;
  node.append(marker, body, omitted);
  const view = new BlockView(body, { outerDefinitions });
  return { node, marker, markerText: "", announced: false, announcing: null, omitted, view, place: null };
}

/** Sets the marker line to `text`: a new draft's a moment after it is shown, so that it is announced. */
function setMarker(shownDraft, text) {
  if (shownDraft.markerText === text) return;
  shownDraft.markerText = text;
  if (shownDraft.announced) {
    shownDraft.marker.textContent = text;
    return;
  }
  if (shownDraft.announcing) return;
  shownDraft.announcing = setTimeout(() => {
    shownDraft.announced = true;
    shownDraft.marker.textContent = shownDraft.markerText;
  }, ANNOUNCE_AFTER_MS);
}

/**
 * Shows the client's drafts in `root`'s `#drafts` (replacements, above the
 * document) and `#drafts-end` (appends, after it). `activity.note(text,
 * tool)` records a draft that ended unsaved ("Draft by alice cancelled").
 * `documentDefinitions()` gives the shown document's reference definitions,
 * which an addition or a replacement passage may use.
 */
export function mountDrafts(root, client, activity, documentDefinitions) {
  const places = { over: root.querySelector("#drafts"), end: root.querySelector("#drafts-end") };
  const shown = new Map();  // call id -> its elements
  const changed = new Map();  // call id -> the draft to show, or null to remove, at the next frame
  let frame = null;

  const show = (callId, draft) => {
    let shownDraft = shown.get(callId);
    if (!shownDraft) {
      // A new version of the whole document stands alone; a part of it may use the document's links.
      shownDraft = draftElements(callId, draft.field === "content" ? null : documentDefinitions);
      shown.set(callId, shownDraft);
    }
    const place = placeOf(draft);
    if (shownDraft.place !== place) {
      places[place].append(shownDraft.node);
      shownDraft.place = place;
    }
    setMarker(shownDraft, draftMarker(draft));  // announced once, and again only if it changes (a title)
    shownDraft.view.show(draft.text);
    shownDraft.omitted.hidden = !draft.omitted;
  };
  const remove = (callId) => {
    const shownDraft = shown.get(callId);
    if (!shownDraft) return;
    shownDraft.view.stop();
    clearTimeout(shownDraft.announcing);
    shownDraft.node.remove();
    shown.delete(callId);
  };
  const renderFrame = () => {
    frame = null;
    for (const [callId, draft] of changed) {
      if (draft) show(callId, draft);
      else remove(callId);
    }
    changed.clear();
    for (const place of Object.values(places)) place.hidden = place.childElementCount === 0;
  };
  const later = (callId, draft) => {
    changed.set(callId, draft);
    if (frame === null) frame = requestAnimationFrame(renderFrame);
  };

  client.on("draft", (callId, draft) => later(callId, draft));
  client.on("change", () => {
    // The document's links may have changed: shown after the document (its frame was asked for first).
    for (const [callId, draft] of client.drafts) if (draft.field !== "content") later(callId, draft);
  });
  client.on("draft-end", (callId, event, draft) => {
    later(callId, null);
    if (UNSAVED_OUTCOMES.has(event.outcome)) {
      activity.note(`Draft by ${(draft && draft.actor) || "an agent"} ${event.outcome}`, draft ? draft.tool : null);
    }
  });
  for (const [callId, draft] of client.drafts) later(callId, draft);
}
