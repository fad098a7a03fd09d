// The panel's history: a list of the versions, newest first (the client's
// activity, paged from revisions/ as the person scrolls); a click on one (or
// on an activity entry, or Previous and Next) opens it with a diff against
// the version before it and against the current one (within the bounds of
// diff.js: past them both versions whole, saying why), kept true as changes
// arrive; and (with write permission) restores it, after asking, with a way
// back.
import { diffElement } from "./diff.js";
import { changeButton, changeHead, element, notify } from "./dom.js";
import { activityItem } from "./client.js";

const KEPT_REVISIONS = 16;  // versions read, kept for the diffs; a version's text never changes

function comparison(label, [beforeLabel, before], [afterLabel, after], limits) {
  const section = element("section", "", { class: "comparison" });
  section.append(element("h4", label));
  section.append(before === null ? element("p", "That version is no longer kept.")
    : diffElement(before, after, { ...limits, beforeLabel, afterLabel }));
  return section;
}

function versionEntry(item, open) {
  const entry = element("li", "", { "data-version": String(item.version) });
  entry.append(changeButton(item, open));
  return entry;
}

/** A few versions' revisions, read once each. */
function revisionCache(client) {
  const kept = new Map();
  return async (version) => {
    if (version <= 0) return { content: "", title: "" };
    if (!kept.has(version)) {
      kept.set(version, client.revision(version));
      if (kept.size > KEPT_REVISIONS) kept.delete(kept.keys().next().value);
    }
    try {
      return await kept.get(version);
    } catch (error) {
      kept.delete(version);
      throw error;
    }
  };
}

/**
 * Wires the History toggle, the list of versions, Previous and Next, and
 * "Restore this version"; `limits` bound its diffs (diff.js's DIFF_LIMITS
 * names). Returns {open(version)}: shows History at that version.
 */
export function mountHistory(root, client, limits = {}) {
  const toggle = root.querySelector("#history-toggle");
  const section = root.querySelector("#history");
  const list = root.querySelector("#versions");
  const end = root.querySelector("#versions-end");
  const view = root.querySelector("#history-view");
  const previous = root.querySelector("#history-previous");
  const next = root.querySelector("#history-next");
  const restore = root.querySelector("#restore");
  const restoreReason = root.querySelector("#restore-reason");
  const revision = revisionCache(client);
  let shown = 0;  // the version open, 0 for none
  let latest = 0;  // the latest request to show one: a slower answer to an earlier one is dropped

  const setRestorable = (on) => {
    if (restore) restore.closest(".restore").hidden = !on;
  };
  const markOpen = () => {
    for (const button of list.querySelectorAll(".change")) {
      const current = Number(button.parentElement.dataset.version) === shown;
      if (current) button.setAttribute("aria-current", "true");
      else button.removeAttribute("aria-current");
    }
    previous.disabled = shown <= 1;
    next.disabled = shown >= client.state.version;
  };

  async function show(version) {
    const request = ++latest;
    const stillWanted = () => request === latest;
    const moved = version !== shown;
    shown = version;
    markOpen();
    if (moved) {
      setRestorable(false);  // nothing to restore until this version is shown
      delete view.dataset.version;
      view.replaceChildren(element("p", `Opening version ${version}…`));
    }
    let opened;
    let before;
    try {
      [opened, before] = await Promise.all([revision(version), revision(version - 1).catch(() => null)]);
    } catch (error) {
      if (!stillWanted()) return;
      view.replaceChildren(element("p", `Version ${version} cannot be opened: ${error.message}`, { class: "error" }));
      return;
    }
    if (!stillWanted()) return;
    const item = activityItem(opened);
    const current = client.state;
    const text = [`Version ${version}`, opened.content];
    view.replaceChildren(
      changeHead(item),
      element("p", item.reason, { class: "reason" }),
      comparison(`Changes from version ${version - 1}`, [`Version ${version - 1}`, before && before.content], text,
        limits),
      version === current.version ? element("p", `Version ${version} is the current version.`, { class: "same" })
        : comparison(`From version ${version} to the current version ${current.version}`, text,
          [`Current version ${current.version}`, current.content], limits),
    );
    view.dataset.version = String(version);
    setRestorable(version !== current.version);
  }

  const setOpen = (open) => {
    section.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
  };
  const open = (version) => {
    setOpen(true);
    show(version);
    section.scrollIntoView({ block: "nearest" });
  };
  toggle.addEventListener("click", () => {
    const opening = section.hidden;
    setOpen(opening);
    if (opening) show(shown || client.state.version);
  });
  previous.addEventListener("click", () => show(shown - 1));
  next.addEventListener("click", () => show(shown + 1));

  const renderList = (items) => {
    list.replaceChildren(...items.map((item) => versionEntry(item, open)));
    end.hidden = !items.length || items[items.length - 1].version <= 1;
    markOpen();
  };
  client.on("activity", renderList);
  renderList(client.activity);
  // Paged as the person scrolls: the end of the list, once seen, loads the page before it.
  let loading = false;
  const loadOlder = async () => {
    if (loading || end.hidden) return;
    loading = true;
    try {
      await client.loadOlderActivity();
    } catch (error) {
      console.error(error);
    } finally {
      loading = false;
    }
  };
  if (globalThis.IntersectionObserver) {
    new IntersectionObserver((seen) => seen.some((entry) => entry.isIntersecting) && loadOlder()).observe(end);
  }
  end.addEventListener("click", loadOlder);

  // The current version moved: the open version's comparison with it, and Next, say so (once a frame).
  let again = false;
  client.on("change", () => {
    if (section.hidden || !shown || again) return;
    again = true;
    requestAnimationFrame(() => {
      again = false;
      show(shown);
    });
  });

  if (restore) {
    restore.addEventListener("click", async () => {
      const version = Number(view.dataset.version);
      const from = client.state.version;
      if (!window.confirm(`Restore version ${version}? It becomes a new version; version ${from} stays in the ` +
        "history and can be restored again.")) return;
      try {
        const restored = await client.restore(version, { reason: restoreReason.value.trim() });
        restoreReason.value = "";
        notify(root, `Version ${version} restored as version ${restored.version}.`, "success",
          { label: `Undo: restore version ${from}`, run: () => client.restore(from).then(
            (back) => notify(root, `Version ${from} restored as version ${back.version}.`, "success"),
            (error) => notify(root, `Version ${from} was not restored: ${error.message}`, "error")) });
      } catch (error) {
        notify(root, `Version ${version} was not restored: ${error.message}`, "error");
      }
    });
  }
  return { open };
}
