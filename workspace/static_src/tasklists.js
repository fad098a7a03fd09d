// Task lists in the rendered Markdown: a list item that starts with "[ ] " or
// "[x] " shows a checkbox, ticked or not, that cannot be changed (the panel
// shows the document; Edit changes it). The box and the item's text are one
// <label>, so the box is named by its task.
const TASK = /^\[([ xX])\][ \t]+/;

function taskItem(tokens, index) {
  const inline = tokens[index];
  return inline.type === "inline" && index >= 2 && tokens[index - 1].type === "paragraph_open" &&
    tokens[index - 2].type === "list_item_open" && inline.children.length > 0 &&
    inline.children[0].type === "text" && TASK.test(inline.children[0].content);
}

function htmlToken(state, content) {
  const token = new state.Token("html_inline", "", 0);
  token.content = content;
  return token;
}

/** markdown-it plugin: task list items as disabled checkboxes in a label (classes task-list, task-list-item). */
export function taskLists(md) {
  md.core.ruler.after("inline", "task_lists", (state) => {
    const tokens = state.tokens;
    for (let index = 2; index < tokens.length; index += 1) {
      if (!taskItem(tokens, index)) continue;
      const inline = tokens[index];
      const first = inline.children[0];
      const done = TASK.exec(first.content)[1] !== " ";
      first.content = first.content.replace(TASK, "");
      const box = `<label class="task"><input type="checkbox" disabled${done ? " checked" : ""}> `;
      inline.children.unshift(htmlToken(state, box));
      inline.children.push(htmlToken(state, "</label>"));
      tokens[index - 2].attrJoin("class", "task-list-item");
      for (let at = index - 3; at >= 0; at -= 1) {  // the list this item is in
        if (tokens[at].type === "bullet_list_open" || tokens[at].type === "ordered_list_open") {
          if (tokens[at].level === tokens[index - 2].level - 1) {
            tokens[at].attrJoin("class", "task-list");
            break;
          }
        }
      }
    }
  });
}
