/* django-workspace panel. Bundled third-party code: see THIRD_PARTY_LICENSES.txt beside this file. */
import{mountPanel as e}from"./panel.js";e(document.getElementById("panel"));
