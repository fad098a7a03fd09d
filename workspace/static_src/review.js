// The panel's review: the toggle "Review agents' changes" (for people who
// may write) and, while review is on, a line saying agents' changes wait;
// the open proposals as they arrive, each with who, tool, reason and time
// and its hunks as a diff, an Accept / Reject choice per hunk and the
// buttons Accept all, Reject all and Apply decision. A decision that meets
// changes made since on the same lines shows their three sides, as an
// edit's conflict does; a decided proposal leaves the list for the activity.
import { describeAuthor, element, notify, timeElement } from "./dom.js";

/** The lines of `text` (a hunk's side) as marked lines: deleted or inserted. */
function sideLines(text, tag, className) {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines.map((line) => element(tag, line || " ", { class: className }));
}

function hunkEntry(proposal, hunk, canWrite) {
  const entry = element("li", "", { class: "hunk", "data-hunk": String(hunk.index) });
  const first = hunk.base_start + 1;
  let where = `lines ${first}–${hunk.base_end}`;
  if (hunk.base_start === hunk.base_end) where = hunk.base_start ? `after line ${hunk.base_start}` : "at the start";
  else if (hunk.base_end === first) where = `line ${first}`;
  entry.append(element("h4", `Part ${hunk.index + 1}, ${where}`));
  const diff = element("div", "", { class: "hunk-diff" });
  diff.append(...sideLines(hunk.old, "del", "removed"), ...sideLines(hunk.new, "ins", "added"));
  entry.append(diff);
  if (!canWrite) return entry;
  const choice = element("fieldset", "", { class: "choice" });
  choice.append(element("legend", `Part ${hunk.index + 1} of proposal ${proposal.id}`));
  for (const [value, label] of [["accept", "Accept"], ["reject", "Reject"]]) {
    const option = element("label", "", { class: "option" });
    const radio = element("input", "", { type: "radio", name: `proposal-${proposal.id}-hunk-${hunk.index}`, value });
    radio.checked = value === "accept";
    option.append(radio, ` ${label}`);
    choice.append(option);
  }
  entry.append(choice);
  return entry;
}

function conflictsEntry(conflicts) {
  const box = element("div", "", { class: "conflicts", role: "group", "aria-label": "Conflicts" });
  box.append(element("p", "Not applied: these lines changed since it was proposed. It stays open; accept fewer parts, or edit the document."));
  const list = element("ol");
  conflicts.forEach((conflict, index) => {
    const entry = element("li", "", { class: "conflict" });
    entry.append(element("h4", `Conflict ${index + 1}`));
    const grid = element("div", "", { class: "sides" });
    for (const [label, text] of [["When proposed", conflict.base], ["Now", conflict.current], ["The proposal", conflict.yours]]) {
      const side = element("div", "", { class: "side" });
      side.append(element("h5", label), element("pre", text || "(nothing)", { class: text ? "" : "empty" }));
      grid.append(side);
    }
    entry.append(grid);
    list.append(entry);
  });
  box.append(list);
  return box;
}

function proposalEntry(root, client, proposal, canWrite) {
  const entry = element("li", "", { class: "proposal", "data-proposal": String(proposal.id) });
  const head = element("p", "", { class: "activity-head" });
  head.append(element("strong", `Proposal ${proposal.id}`), " · ", timeElement(proposal.time), " · ");
  head.append(element("span", describeAuthor({ actor: proposal.actor, source: "agent" }), { class: "author agent" }));
  head.append(" · ", element("code", proposal.tool, { class: "tool" }), ` · on version ${proposal.baseVersion}`);
  entry.append(head);
  if (proposal.reason) entry.append(element("p", proposal.reason, { class: "reason" }));
  if (proposal.title) {
    entry.append(element("p", `Title: “${proposal.title.old}” → “${proposal.title.new}” (goes with any part accepted)`, { class: "title-change" }));
  }
  const hunks = element("ol", "", { class: "hunks" });
  if (proposal.hunks === null) hunks.append(element("li", "Loading its parts…"));
  else for (const hunk of proposal.hunks) hunks.append(hunkEntry(proposal, hunk, canWrite));
  entry.append(hunks);
  if (!canWrite) return entry;
  const outcome = element("div", "", { class: "proposal-outcome" });
  const actions = element("div", "", { class: "proposal-actions" });
  const decide = async (accept, button) => {
    for (const control of actions.querySelectorAll("button")) control.disabled = true;
    try {
      const answer = await client.decide(proposal.id, accept);
      if (answer.conflicts) {
        outcome.replaceChildren(conflictsEntry(answer.conflicts));
        notify(root, `Proposal ${proposal.id} conflicts with changes made since; nothing was changed.`, "error");
      }
    } catch (error) {
      notify(root, `Proposal ${proposal.id} not decided: ${error.message}`, "error");
    } finally {
      for (const control of actions.querySelectorAll("button")) control.disabled = false;
      if (button.isConnected) button.focus();
    }
  };
  const chosen = () =>
    [...hunks.querySelectorAll("li.hunk")]
      .filter((item) => item.querySelector('input[value="accept"]').checked)
      .map((item) => Number(item.dataset.hunk));
  for (const [label, accept, className] of [
    ["Accept all", () => "all", "primary"],
    ["Reject all", () => "none", ""],
    ["Apply decision", chosen, ""],
  ]) {
    const button = element("button", label, { type: "button", class: className });
    button.addEventListener("click", () => decide(accept(), button));
    actions.append(button);
  }
  entry.append(actions, outcome);
  return entry;
}

/** Wires the review's toggle, its line and the open proposals (`canWrite`: the controls too). */
export function mountReview(root, client, activity, canWrite) {
  const toggle = root.querySelector("#review-toggle");
  const note = root.querySelector("#review-on");
  const section = root.querySelector("#proposals");
  const list = root.querySelector("#proposals-list");
  const showMode = (review) => {
    if (toggle) toggle.setAttribute("aria-pressed", String(review));
    note.hidden = !review;
  };
  const showProposals = () => {
    const newestFirst = [...client.proposals.values()].sort((a, b) => b.id - a.id);
    list.replaceChildren(...newestFirst.map((proposal) => proposalEntry(root, client, proposal, canWrite)));
    section.hidden = newestFirst.length === 0;
  };
  if (toggle) {
    toggle.addEventListener("click", async () => {
      const on = toggle.getAttribute("aria-pressed") !== "true";
      toggle.disabled = true;
      try {
        await client.turnReview(on);
        notify(root, on ? "Review is on: agents' changes now wait for you." : "Review is off: agents' changes apply at once.", "success");
      } catch (error) {
        notify(root, `Review not changed: ${error.message}`, "error");
      } finally {
        toggle.disabled = false;
      }
    });
  }
  client.on("review", showMode);
  client.on("proposals", showProposals);
  client.on("proposal-decided", (event, proposal) => {
    const by = event.decided_by || "someone";
    const what = `Proposal ${event.id} by ${(proposal && proposal.actor) || "an agent"} ${event.status} by ${by}`;
    if (event.status === "rejected") activity.note(what, proposal ? proposal.tool : null);
    notify(root, event.version ? `${what}: version ${event.version}.` : `${what}.`, "success");
  });
  showMode(client.state.review);
  showProposals();
}
