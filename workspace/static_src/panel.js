// The panel page: mounts the document client on the page's markup
// (workspace/templates/workspace/panel.html) and shows the document
// rendered, live, with its activity, drafts being written, proposals waiting
// for review, history, editor, Copy and Download.
import { openDocument } from "./client.js";
import { mountActivity } from "./activity.js";
import { mountDrafts } from "./drafts.js";
import { mountEditor } from "./editor.js";
import { mountHistory } from "./history.js";
import { mountReview } from "./review.js";
import { notify } from "./dom.js";
import { BlockView } from "./incremental.js";

/**
 * Where the panel records how long rendering took, when a page (a test, a
 * bench) has set `window.__workspacePanelTimings` to an array before the
 * panel mounts: one record per showing, {version, length, blocks, rendered,
 * pending, shownMs} (from the change's arrival to its first blocks in the
 * DOM), and {version, completeMs} once every block is in. Never set by the panel.
 */
function timings() {
  const records = globalThis.__workspacePanelTimings;
  return Array.isArray(records) ? records : null;
}

/** True when the content's first line is a top-level heading that says `title`: the header need not say it again. */
function headedBy(content, title) {
  const firstLine = content.slice(0, 300).split("\n", 1)[0];
  const heading = /^ {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(firstLine);
  return Boolean(title) && heading !== null && heading[1].trim() === title.trim();
}

function showDocument(root, state, view, download, arrived = performance.now()) {
  const title = root.querySelector("#title");
  title.textContent = state.version ? state.title || "Untitled document" : "No document yet";
  // Said once: by the document's own heading when it has one (the header's stays for screen readers).
  title.classList.toggle("visually-hidden", headedBy(state.content, state.title));
  root.querySelector("#rendered").classList.toggle("empty", state.version === 0);
  root.querySelector("#empty").hidden = state.version !== 0;
  root.querySelector("#version").textContent = String(state.version);
  root.querySelector("#length").textContent = String(state.length);
  view.shownVersion = { version: state.version, arrived };
  const shown = view.show(state.content);
  const records = timings();
  if (records) {
    records.push({ version: state.version, length: state.length, ...shown, shownMs: performance.now() - arrived });
  }
  root.querySelector("#content").textContent = state.content;
  if (download.href.startsWith("blob:")) URL.revokeObjectURL(download.href);
  download.href = URL.createObjectURL(new Blob([state.content], { type: "text/markdown;charset=utf-8" }));
}

/** The rendered document's view; records when a showing is complete, if timings are asked for. */
function renderedView(root) {
  const view = new BlockView(root.querySelector("#rendered"), {
    onComplete: () => {
      const records = timings();
      const { version, arrived } = view.shownVersion;
      if (records) records.push({ version, completeMs: performance.now() - arrived });
    },
  });
  view.shownVersion = { version: 0, arrived: performance.now() };
  return view;
}

/** showDocument at most once a frame: a burst of changes is rendered once, at its last version. */
function showEachFrame(root, view, download) {
  let pending = null;
  let arrived = 0;
  return (state) => {
    const first = pending === null;
    pending = state;
    if (!first) return;
    arrived = performance.now();
    requestAnimationFrame(() => {
      const shown = pending;
      pending = null;
      showDocument(root, shown, view, download, arrived);
    });
  };
}

function showStatus(root, status) {
  const node = root.querySelector("#status");
  node.textContent = status;
  node.className = `status ${status}`;
}

function mountSourceToggle(root) {
  const toggle = root.querySelector("#source");
  toggle.addEventListener("click", () => {
    const showSource = toggle.getAttribute("aria-pressed") !== "true";
    toggle.setAttribute("aria-pressed", String(showSource));
    root.querySelector("#content").hidden = !showSource;
    root.querySelector("#rendered").hidden = showSource;
  });
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}

/** The bounds of the history's diffs: the page's data-diff-max-lines (the server's line bound), else diff.js's. */
function diffLimits(data) {
  const maxLines = Number(data.diffMaxLines);
  return Number.isInteger(maxLines) && maxLines > 0 ? { maxLines } : {};
}

/** Shows the panel in `root` (the page's <main id="panel">, its data-* attributes naming the URLs). */
export function mountPanel(root) {
  const data = root.dataset;
  const client = openDocument({
    documentUrl: data.documentUrl,
    eventsUrl: data.eventsUrl,
    revisionsUrl: data.revisionsUrl,
    proposalsUrl: data.proposalsUrl,
    csrfToken: data.csrfToken,
  });
  const download = root.querySelector("#download");
  download.setAttribute("download", `${data.threadId}.md`);
  const view = renderedView(root);
  client.on("change", showEachFrame(root, view, download));
  client.on("status", (status) => showStatus(root, status));
  showDocument(root, client.state, view, download);
  mountSourceToggle(root);
  const history = mountHistory(root, client, diffLimits(data));
  const activity = mountActivity(root, client, history.open);
  mountDrafts(root, client, activity, () => view.definitions);
  mountReview(root, client, activity, data.canWrite === "true");
  root.querySelector("#copy").addEventListener("click", async () => {
    try {
      await copyText(client.state.content);
      notify(root, `Version ${client.state.version} copied.`, "success");
    } catch (error) {
      notify(root, `Not copied: ${error.message}`, "error");
    }
  });
  if (data.canWrite === "true") mountEditor(root, client, data.threadId, diffLimits(data));
  return client;
}
