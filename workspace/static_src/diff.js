// Line diffs for the panel's history (SPEC 8.4), built as DOM nodes: text is
// only ever set as text, inserted lines in <ins>, deleted ones in <del>.
import { diffLines } from "diff";

/** The changes from `before` to `after`: [{added, removed, value}], by lines (jsdiff). */
export function lineChanges(before, after) {
  return diffLines(before || "", after || "");
}

/** A <pre class="diff"> showing `before` → `after`, with <ins> and <del> marking the changes. */
export function diffElement(before, after, doc = globalThis.document) {
  const pre = doc.createElement("pre");
  pre.className = "diff";
  let changed = 0;
  for (const part of lineChanges(before, after)) {
    const tag = part.added ? "ins" : part.removed ? "del" : "span";
    if (part.added || part.removed) changed += 1;
    const node = doc.createElement(tag);
    node.textContent = part.value;
    pre.appendChild(node);
  }
  if (changed === 0) {
    pre.textContent = "";
    const same = doc.createElement("em");
    same.textContent = "No difference.";
    pre.appendChild(same);
  }
  return pre;
}
