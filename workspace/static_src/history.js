// The panel's history: opens any kept version, shows it with a diff against
// the version before it and against the current one (within the bounds of
// diff.js: past them both versions whole, saying why), and (with write
// permission) restores it.
import { diffElement } from "./diff.js";
import { describeAuthor, element, notify, timeElement } from "./dom.js";
import { activityItem } from "./client.js";

async function contentBefore(client, version) {
  if (version <= 1) return "";
  try {
    return (await client.revision(version - 1)).content;
  } catch {
    return null;  // not kept (pruned)
  }
}

function comparison(label, [beforeLabel, before], [afterLabel, after], limits) {
  const section = element("section", "", { class: "comparison" });
  section.append(element("h4", label));
  section.append(before === null ? element("p", "That version is no longer kept.")
    : diffElement(before, after, { ...limits, beforeLabel, afterLabel }));
  return section;
}

async function showVersion(root, client, version, limits) {
  const view = root.querySelector("#history-view");
  const restore = root.querySelector("#restore");
  view.replaceChildren(element("p", `Opening version ${version}…`));
  let revision;
  try {
    revision = await client.revision(version);
  } catch (error) {
    view.replaceChildren(element("p", `Version ${version} cannot be opened: ${error.message}`, { class: "error" }));
    if (restore) restore.hidden = true;
    return;
  }
  const item = activityItem(revision);
  const head = element("p", "", { class: "activity-head" });
  head.append(element("strong", `Version ${version}`), " · ", timeElement(item.time), " · ", describeAuthor(item));
  if (item.tool) head.append(" · ", element("code", item.tool));
  const before = await contentBefore(client, version);
  const shown = [`Version ${version}`, revision.content];
  const current = client.state;
  view.replaceChildren(
    head,
    element("p", item.reason, { class: "reason" }),
    comparison(`Changes from version ${version - 1}`, [`Version ${version - 1}`, before], shown, limits),
    comparison(`From version ${version} to the current version ${current.version}`, shown,
      [`Current version ${current.version}`, current.content], limits),
  );
  view.dataset.version = String(version);
  if (restore) restore.hidden = false;
}

/**
 * Wires the History toggle, the version picker and "Restore this version";
 * `limits` bound its diffs (diff.js's DIFF_LIMITS names).
 */
export function mountHistory(root, client, limits = {}) {
  const toggle = root.querySelector("#history-toggle");
  const section = root.querySelector("#history");
  const picker = root.querySelector("#history-version");
  const restore = root.querySelector("#restore");
  toggle.addEventListener("click", () => {
    const open = section.hidden;
    section.hidden = !open;
    toggle.setAttribute("aria-expanded", String(open));
    if (open) {
      picker.max = String(client.state.version);
      if (!picker.value) picker.value = String(client.state.version);
      showVersion(root, client, Number(picker.value), limits);
    }
  });
  root.querySelector("#history-form").addEventListener("submit", (event) => {
    event.preventDefault();
    showVersion(root, client, Number(picker.value), limits);
  });
  if (!restore) return;
  restore.addEventListener("click", async () => {
    const version = Number(root.querySelector("#history-view").dataset.version);
    try {
      const restored = await client.restore(version);
      notify(root, `Version ${version} restored as version ${restored.version}.`);
    } catch (error) {
      notify(root, `Version ${version} was not restored: ${error.message}`, "error");
    }
  });
}
