// The panel page's script (workspace/static/workspace/panel-page.js): mounts
// the panel from the client library beside it.
import { mountPanel } from "./panel.js";

mountPanel(document.getElementById("panel"));
